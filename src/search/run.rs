//! One search from its root to its result: the job it is asked ([`super::job`]), the main
//! thread's iterative deepening, the exact solver's tries between iterations, and how a proof
//! becomes the reported lines.

use super::job::Job;
use super::{simple, Iteration, Line, Reporter, SearchLimits, SearchResult, Searcher};
use super::{worker::next_order, MIN_SOLVER_BUDGET};
use crate::bits::Bitboard;
use crate::board::Position;
use crate::control::SearchControl;
use crate::ordering::column_order;
use crate::score::{self, Score, ScoreBound, Value};
use crate::solver::RootProof;
use std::sync::Arc;
use std::time::Duration;

impl Searcher {
    pub(super) fn run<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
        limits: &SearchLimits,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        if root.is_game_over() {
            let score = if root.last_mover_won() {
                Score::Loss(0)
            } else {
                Score::Draw
            };
            let last = Iteration {
                depth: 0,
                seldepth: 0,
                lines: vec![Line {
                    value: Value::exact(score),
                    pv: vec![],
                }],
                nodes: 0,
                time: control.elapsed(),
                hashfull: self.main.tt.hashfull(),
                solved: true,
                book_hits: 0,
            };
            self.idle(limits, control);
            return SearchResult { best: None, last };
        }
        // with the prover beside the search (two threads or more), the main thread does not
        // stop for the solver
        let interleave = self.techniques.solver && self.prover.is_none();
        let job = Job::new(root, limits, control, interleave);
        if !self.techniques.engine {
            let mut last = simple::deepen(self.techniques, &job, &self.main.tt, reporter);
            self.main.nodes = last.nodes;
            self.idle(limits, control);
            last.time = control.elapsed();
            return SearchResult {
                best: last.lines[0].pv.first().copied(),
                last,
            };
        }
        // The book scores every move here: answer at once, before any search (at a few
        // milliseconds the first iteration may use up the time).
        if job.one_line {
            self.solver.reset_nodes();
            if let Some((c, v)) = self.solver.book_move(root) {
                self.book_hits += self.solver.book_hits();
                let line = Line {
                    value: job.proven(v),
                    pv: vec![c],
                };
                let it = self.iteration(1, vec![line], true, control);
                reporter.report(&it);
                self.idle(limits, control);
                return SearchResult {
                    best: Some(c),
                    last: it,
                };
            }
        }
        #[cfg(feature = "threads")]
        let mut last = match self.prover.take() {
            Some(prover) if self.techniques.solver => self.search_beside(prover, &job, reporter),
            prover => {
                self.prover = prover;
                self.search_threads(&job, reporter)
            }
        };
        // one thread only (MAX_THREADS is 1): no helpers, no prover beside the search
        #[cfg(not(feature = "threads"))]
        let mut last = self.deepen(&job, reporter);
        // an unproven search does not overrule a move proven to keep a known value, unless
        // its own move is shown to keep as much (a win the search found)
        if let Some((c, x)) = self.secured {
            let (cells, moves) = ((W * H) as i32, root.moves() as i32);
            let kept = last.lines[0]
                .value
                .floor(cells, moves)
                .is_some_and(|f| f >= x);
            if !last.solved && last.lines[0].pv.first() != Some(&c) && !kept {
                last.lines[0] = Line {
                    value: Value {
                        bound: ScoreBound::Lower,
                        ..job.proven(x)
                    },
                    pv: vec![c],
                };
            }
        }
        self.idle(limits, control);
        // every thread's nodes: the helpers have ended and counted theirs
        last.nodes = self.main.nodes + self.helpers.iter().map(|h| h.nodes).sum::<u64>();
        last.time = control.elapsed();
        last.hashfull = self.main.tt.hashfull();
        SearchResult {
            best: last.lines[0].pv.first().copied(),
            last,
        }
    }

    /// The main thread's iterative deepening, with the solver's tries between iterations when
    /// the job `interleave`s; the last iteration (complete or cut short).
    pub(super) fn deepen<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        job: &Job<W, H, B>,
        reporter: &mut dyn Reporter,
    ) -> Iteration {
        let root = job.root;
        let cells = (W * H) as u32;
        let moves = root.moves();
        let mut order = job.order.clone();
        let mut last: Option<Iteration> = None;
        let mut search_nodes = 0u64;
        for depth in 1..=job.max_depth {
            self.main.can_stop = depth > 1;
            let before = self.main.nodes;
            let (mut done, complete) =
                self.main
                    .root_search(root, depth as i32, &order, job.multipv);
            search_nodes += self.main.nodes - before;
            if !complete && done.is_empty() {
                break;
            }
            // best first; a stable sort keeps the search order among equals
            done.sort_by_key(|m| std::cmp::Reverse(m.1));
            // Only a search to the end of the game proves the root: a win or a loss found
            // before it is a bound (see score::search_value), which the deepening and the
            // solver go on to settle.
            let to_end = depth >= cells - moves;
            let lines: Vec<Line> = done
                .iter()
                .take(job.multipv)
                .map(|(_, v, pv)| Line {
                    value: score::search_value(cells as i32, moves as i32, *v, to_end, complete),
                    pv: pv.iter().map(|&c| c as usize).collect(),
                })
                .collect();
            self.main.prev_pv = done[0].2.clone();
            order = next_order(&done, &order);
            let solved = complete && (to_end || lines[0].value.is_proven());
            let it = self.iteration(depth, lines, solved, job.control);
            if complete {
                reporter.report(&it);
            }
            last = Some(it);
            if !complete || solved || self.should_end(job.control) {
                break;
            }
            // Give the exact solver a try, with as much work as the search (the main thread's,
            // so that the solver gets about as much time) has done so far (not when the study
            // leaves it out, nor when the prover runs beside the search).
            if !job.interleave {
                continue;
            }
            if let Some(lines) = self.try_solve(job, &order, search_nodes) {
                let it = self.iteration(depth, lines, true, job.control);
                reporter.report(&it);
                last = Some(it);
                break;
            }
            if self.should_end(job.control) {
                break;
            }
        }
        last.expect("depth 1 always completes")
    }

    /// Under `infinite` or while pondering, a finished search waits for `stop` (or `ponderhit`).
    fn idle(&self, limits: &SearchLimits, control: &SearchControl) {
        while !control.is_stopped() && (limits.infinite || control.is_pondering()) {
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn should_end(&mut self, control: &SearchControl) -> bool {
        self.main.stopped || self.main.limits.reached(self.main.all_nodes()) || control.past_soft()
    }

    pub(super) fn iteration(
        &self,
        depth: u32,
        lines: Vec<Line>,
        solved: bool,
        control: &SearchControl,
    ) -> Iteration {
        Iteration {
            depth,
            seldepth: (self.main.seldepth as u32).max(depth),
            lines,
            nodes: self.main.all_nodes(),
            time: control.elapsed(),
            hashfull: self.main.tt.hashfull(),
            solved,
            book_hits: self.book_hits,
        }
    }

    /// One solver attempt on the root, the root moves in the search's `order`; the lines if it
    /// finished.
    fn try_solve<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        job: &Job<W, H, B>,
        order: &[usize],
        search_nodes: u64,
    ) -> Option<Vec<Line>> {
        // the search's work is the main thread's; the solver's budget counts all its threads'
        let threads = self.solver.threads() as u64;
        let budget = (search_nodes.max(MIN_SOLVER_BUDGET) * threads).min(
            self.main
                .limits
                .budget
                .remaining(self.main.all_nodes())
                .unwrap_or(u64::MAX),
        );
        if budget < 1000 {
            return None;
        }
        self.solver.reset_nodes();
        if let Some(crew) = &self.main.crew {
            crew.pause();
        }
        let proof = self.solver.prove_root(
            job.root,
            job.one_line,
            &mut self.secured,
            job.control,
            budget,
        );
        if let Some(crew) = &self.main.crew {
            crew.resume();
        }
        self.main.nodes += self.solver.nodes();
        self.book_hits += self.solver.book_hits();
        self.proof_lines(job, proof, order)
    }

    /// The lines a root proof gives (`None`: unproven), ranked over the root moves `order`,
    /// the search's line kept where it starts with the proven move.
    pub(super) fn proof_lines<const W: usize, const H: usize, B: Bitboard>(
        &self,
        job: &Job<W, H, B>,
        proof: RootProof,
        order: &[usize],
    ) -> Option<Vec<Line>> {
        let prev_pv = &self.main.prev_pv;
        let scores = match proof {
            RootProof::Keeps { col, score } => {
                let pv = if prev_pv.first() == Some(&(col as u8)) {
                    prev_pv.iter().map(|&m| m as usize).collect()
                } else {
                    vec![col]
                };
                return Some(vec![Line {
                    value: job.proven(score),
                    pv,
                }]);
            }
            RootProof::Unproven => return None,
            RootProof::Columns(scores) => scores,
        };
        let mut ranked: Vec<(usize, i32)> = order
            .iter()
            .filter_map(|&c| scores[c].map(|s| (c, s)))
            .collect();
        // ties go to the column nearer the centre
        let centre = column_order::<W>();
        ranked.sort_by_key(|&(c, s)| {
            (
                std::cmp::Reverse(s),
                centre.iter().position(|&x| x == c).unwrap_or(W),
            )
        });
        Some(
            ranked
                .iter()
                .take(job.multipv)
                .map(|&(c, s)| {
                    // keep the search's line when it starts with the same move
                    let pv = if prev_pv.first() == Some(&(c as u8)) {
                        prev_pv.iter().map(|&m| m as usize).collect()
                    } else {
                        vec![c]
                    };
                    Line {
                        value: job.proven(s),
                        pv,
                    }
                })
                .collect(),
        )
    }
}
