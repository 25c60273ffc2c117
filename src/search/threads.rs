//! A search on more than one thread: the helpers beside the main thread (Lazy SMP), and the
//! prover beside the search (see [`Searcher::set_threads`]).

use super::job::Job;
use super::worker::{Crew, FinishOnDrop};
use super::{Iteration, Reporter, Searcher};
use crate::bits::Bitboard;
use crate::control::{NodeBudget, SearchControl};
use crate::solver::{RootProof, Solver};
use std::sync::Arc;

impl Searcher {
    /// The search with the prover beside it, on threads of their own: the first to settle the
    /// root ends the other, and the search ending (its time, its depth, `stop`) ends the
    /// prover. A node limit is the two's together. Reports the prover's proof as the last
    /// iteration.
    pub(super) fn search_beside<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        mut prover: Solver,
        job: &Job<W, H, B>,
        reporter: &mut dyn Reporter,
    ) -> Iteration {
        let proven = SearchControl::unlimited();
        // the prover stops when the search ends, and at the search's deadline by itself
        let ended = SearchControl::beneath(job.control.clone());
        if let Some(n) = job.limits.nodes {
            self.main.limits.budget = NodeBudget::start(self.main.nodes, Some(n - n / 2));
        }
        // half the limit for the prover, whose two steps get a budget each (see `prove_root`)
        let budget = job.limits.nodes.map_or(u64::MAX, |n| n / 4);
        self.main.limits.group = Some(proven.clone());
        let mut secured = None;
        prover.reset_nodes();
        let (mut last, proof) = std::thread::scope(|scope| {
            let proving = scope.spawn(|| {
                let proof = prover.prove_root(job.root, job.one_line, &mut secured, &ended, budget);
                if proof != RootProof::Unproven {
                    proven.stop();
                }
                proof
            });
            let last = {
                // the prover ends even if the search unwinds, so the scope joining it ends
                let _end = StopOnDrop(&ended);
                self.search_threads(job, reporter)
            };
            let proof = proving
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (last, proof)
        });
        self.main.limits.group = None;
        self.main.nodes += prover.nodes();
        self.book_hits += prover.book_hits();
        self.prover = Some(prover);
        self.secured = secured;
        if !last.solved {
            if let Some(lines) = self.proof_lines(job, proof, &job.order) {
                let it = self.iteration(last.depth, lines, true, job.control);
                reporter.report(&it);
                last = it;
            }
        }
        last
    }

    /// The search on the main thread and its helpers (Lazy SMP).
    pub(super) fn search_threads<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        job: &Job<W, H, B>,
        reporter: &mut dyn Reporter,
    ) -> Iteration {
        if self.helpers.is_empty() {
            return self.deepen(job, reporter);
        }
        let crew = Arc::new(Crew::new());
        let mut helpers = std::mem::take(&mut self.helpers);
        let last = std::thread::scope(|scope| {
            let _finish = FinishOnDrop(&crew);
            for h in helpers.iter_mut() {
                h.start(
                    Some(job.control.clone()),
                    Some(crew.clone()),
                    NodeBudget::UNLIMITED,
                );
                scope.spawn(move || h.lazy(job.root, &job.order, job.max_depth));
            }
            self.main.crew = Some(crew.clone());
            self.deepen(job, reporter)
        });
        self.main.crew = None;
        self.helpers = helpers;
        last
    }
}

/// Stops a control when dropped, even by a panic.
struct StopOnDrop<'a>(&'a SearchControl);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}
