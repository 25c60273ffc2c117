//! Checking a book: [`verify`] re-solves a sample of its entries with a solver that uses no
//! book, and checks that each stored move keeps the solver's score.

use crate::bits::Bitboard;
use crate::board::{Size, SizedJob};
use crate::book::{key_as, key_discs, position_from_key, Book, BookKey, Entry};
use crate::rng::Rng;
use crate::solver::Solver;
use std::io::{self, Write};

/// What `vier book verify` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifySummary {
    pub checked: usize,
    pub mismatches: usize,
}

/// Re-solves `sample` entries of `book` picked by `seed` (every entry if the book is smaller),
/// with a solver that does not use any book; one line per entry to `out`.
pub fn verify(
    book: &Book,
    sample: usize,
    seed: u64,
    hash_mb: usize,
    out: &mut dyn Write,
) -> io::Result<VerifySummary> {
    let size = Size::new(book.width(), book.height())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    let entries: Vec<(BookKey, Entry)> = book.values().collect();
    let mut picks: Vec<usize> = if sample >= entries.len() {
        (0..entries.len()).collect()
    } else {
        let mut rng = Rng::new(seed);
        let mut set = std::collections::BTreeSet::new();
        while set.len() < sample {
            set.insert((rng.next_u64() % entries.len() as u64) as usize);
        }
        set.into_iter().collect()
    };
    // the deepest (cheapest) first, so that the table helps the shallower ones
    picks.sort_by_key(|&i| std::cmp::Reverse(key_discs(entries[i].0, book.width(), book.height())));
    struct Verify<'a>(&'a [(BookKey, Entry)], Vec<usize>, usize, &'a mut dyn Write);
    impl SizedJob for Verify<'_> {
        type Output = io::Result<VerifySummary>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            let Verify(entries, picks, hash_mb, out) = self;
            let mut solver = Solver::new(hash_mb);
            let mut sum = VerifySummary::default();
            for i in picks {
                let (key, entry) = entries[i];
                let stored = entry.score as i32;
                let Some(p) = key_as::<B>(key).and_then(position_from_key::<W, H, B>) else {
                    sum.checked += 1;
                    sum.mismatches += 1;
                    writeln!(out, "{key:#x} is not a position MISMATCH")?;
                    continue;
                };
                let moves = p.to_move_string().unwrap_or_else(|| format!("{key:#x}"));
                let s = solver.solve(&p).expect("no limits are set");
                sum.checked += 1;
                write!(
                    out,
                    "{} book {stored} solver {s}",
                    crate::notation::display_moves(&moves)
                )?;
                // the stored move must keep the solver's score (a version-1 book has no moves)
                let keeps = entry.best_col().map(|c| {
                    p.can_play(c)
                        && crate::score::of_move(&p, c, |q| {
                            let at_most = solver.value_at_most(q, -s).expect("no limits are set");
                            Ok::<i32, ()>(if at_most { -s } else { -s + 1 })
                        }) == Ok(s)
                });
                if let Some(c) = entry.best_col() {
                    write!(out, " best {}", c + 1)?;
                }
                if s != stored || keeps == Some(false) {
                    sum.mismatches += 1;
                    write!(out, " MISMATCH")?;
                }
                writeln!(out)?;
            }
            Ok(sum)
        }
    }
    size.run(Verify(&entries, picks, hash_mb, out))
}
