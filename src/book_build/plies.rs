//! The positions of a build, ply by ply: every position up to the full-width depth, enumerated
//! so that neighbours share their moves, and the plies above the last scored by negamax over
//! their children (no search), with the one rule for a best move (the centre-most column that
//! keeps the score).

use crate::bits::Bitboard;
use crate::board::Position;
use crate::book::{key_discs, position_from_key, Entry};
use crate::ordering::column_order;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::time::Instant;

/// Every position up to `depth` discs (see [`enumerate`]), after checking that the depth leaves
/// the game something to play; says on `log` what there is to do.
pub(super) fn plan<const W: usize, const H: usize, B: Bitboard>(
    depth: u32,
    log: &mut dyn Write,
) -> io::Result<Vec<Vec<B>>> {
    if depth as usize >= W * H {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("depth {} is not below the {} cells", depth, W * H),
        ));
    }
    let started = Instant::now();
    let plies = enumerate::<W, H, B>(depth);
    let total: usize = plies.iter().map(Vec::len).sum();
    writeln!(
        log,
        "book {}x{} depth {}: {} positions, {} with {} discs to solve ({} ms to enumerate)",
        W,
        H,
        depth,
        total,
        plies[depth as usize].len(),
        depth,
        started.elapsed().as_millis()
    )?;
    Ok(plies)
}

/// The symmetric keys of every position with exactly `d` discs, for `d` in `0..=depth`, whose
/// game is not over (reached only through positions whose game was not over), each mirror pair
/// once. Each ply's keys come in depth-first order from the empty board, so neighbours share
/// most of their moves (and a solver's table serves them all).
pub fn enumerate<const W: usize, const H: usize, B: Bitboard>(depth: u32) -> Vec<Vec<B>> {
    let mut plies: Vec<Vec<B>> = vec![Vec::new(); depth as usize + 1];
    let mut seen: Vec<HashSet<B>> = vec![HashSet::new(); depth as usize + 1];
    fn walk<const W: usize, const H: usize, B: Bitboard>(
        p: &Position<W, H, B>,
        depth: u32,
        plies: &mut [Vec<B>],
        seen: &mut [HashSet<B>],
    ) {
        let d = p.moves() as usize;
        let key = p.symmetric_key().0;
        if !seen[d].insert(key) {
            return;
        }
        plies[d].push(key);
        if p.moves() == depth {
            return;
        }
        for c in 0..W {
            if p.can_play(c) && !p.is_winning_move(c) {
                let mut q = *p;
                q.play_col(c);
                if !q.is_full() {
                    walk(&q, depth, plies, seen);
                }
            }
        }
    }
    walk(&Position::<W, H, B>::new(), depth, &mut plies, &mut seen);
    plies
}

/// Scores every position of `plies` (from [`enumerate`]) above the last ply by negamax over its
/// children, given the entries `leaf` of the last ply's positions; the best move is the
/// best-scoring column nearest the centre. `None` if a needed score is missing.
pub fn complete<const W: usize, const H: usize, B: Bitboard>(
    plies: &[Vec<B>],
    leaf: impl Fn(B) -> Option<Entry>,
) -> Option<Vec<(B, Entry)>> {
    let depth = plies.len() - 1;
    let mut known: HashMap<B, Entry> = HashMap::new();
    for &k in &plies[depth] {
        known.insert(k, leaf(k)?);
    }
    for d in (0..depth).rev() {
        for &k in &plies[d] {
            // decoded from its symmetric key: its columns are the entry's
            let p = position_from_key::<W, H, B>(k)?;
            let e = from_children(&p, |q| known.get(&q).map(|e| e.score as i32))?;
            known.insert(k, e);
        }
    }
    Some(known.into_iter().collect())
}

/// The entry of `p` (decoded from its symmetric key, so that its columns are the entry's) by
/// negamax over its children, whose exact scores `score_of` gives by symmetric key: the best
/// score of its moves, and the column nearest the centre with that score (with a win at once,
/// the centre-most winning column, as [`Solver::best_column`] answers). `None` if a child
/// needed is unknown.
///
/// [`Solver::best_column`]: crate::solver::Solver::best_column
fn from_children<const W: usize, const H: usize, B: Bitboard>(
    p: &Position<W, H, B>,
    score_of: impl Fn(B) -> Option<i32>,
) -> Option<Entry> {
    let mut best: Option<(usize, i32)> = None;
    for &c in column_order::<W>().iter().filter(|&&c| p.can_play(c)) {
        if p.can_win_next() && !p.is_winning_move(c) {
            continue;
        }
        let s = crate::score::of_move(p, c, |q| score_of(q.symmetric_key().0).ok_or(())).ok()?;
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((c, s));
        }
    }
    best.map(|(c, s)| Entry::new(s, Some(c)))
}

/// Entries from the full-width depth on whose children are all in the book take their move
/// from those children, as the shallower plies do. The book then follows its one rule for the
/// best move (the centre-most column with the score) whichever binary or build solved an
/// entry: a journal or an older book may hold a move that kept the score but broke a tie
/// otherwise. A solved score that its children contradict is refused: one of them is wrong.
/// Returns how many moves changed.
pub(super) fn settle<const W: usize, const H: usize, B: Bitboard>(
    entries: &mut [(B, Entry)],
    depth: u32,
) -> io::Result<usize> {
    let scores: HashMap<B, i32> = entries.iter().map(|(k, e)| (*k, e.score as i32)).collect();
    let mut changed = 0;
    for (k, e) in entries.iter_mut() {
        if key_discs(k.to_u128(), W, H) < depth {
            continue;
        }
        let Some(p) = position_from_key::<W, H, B>(*k) else {
            continue;
        };
        let Some(derived) = from_children(&p, |q| scores.get(&q).copied()) else {
            continue;
        };
        if derived.score != e.score {
            let moves = p
                .to_move_string()
                .unwrap_or_else(|| format!("key {:#x}", k.to_u128()));
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "position {moves}: solved score {} but its children give {}",
                    e.score, derived.score
                ),
            ));
        }
        if derived.best != e.best {
            changed += 1;
            *e = derived;
        }
    }
    Ok(changed)
}
