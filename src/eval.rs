//! The static evaluation at the search horizon: a weighted sum of features, in centipawn-like
//! units from the side to move's view (100 = a clear advantage).
//!
//! Features, each counted for the side to move ("us") minus the opponent ("them"):
//! * `good_threats`: threats (three of a line of four with the fourth cell empty) on the owner's
//!   rows — odd rows (1-based from the bottom) for the first player, even rows for the second —
//!   that cannot be played at once. Zugzwang makes these the ones that decide endgames.
//! * `other_threats`: the remaining not-yet-playable threats.
//! * `playable_threats`: threats that can be filled with the next disc. The side to move never
//!   has one here (the search takes such wins before evaluating); the opponent's forces a block.
//! * `twos`: lines of four with two own discs and two empty cells.
//! * `centre`: every own disc weighted by the number of lines of four through its cell.
//!
//! [`explain`] returns the terms, [`evaluate`] only their sum; both agree by construction.

use crate::bits::Bitboard;
use crate::board::{Geometry, Position};

/// Feature weights, in the order of [`FEATURES`].
pub const WEIGHTS: [i32; 5] = [45, 15, 25, 4, 1];
/// Feature names, as `eval` prints them.
pub const FEATURES: [&str; 5] = [
    "good_threats",
    "other_threats",
    "playable_threats",
    "twos",
    "centre",
];
/// The evaluation never leaves `-MAX_EVAL..=MAX_EVAL`, far from the search's exact scores.
pub const MAX_EVAL: i32 = 5000;

/// One feature's contribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub name: &'static str,
    pub us: i32,
    pub them: i32,
    pub weight: i32,
}

impl Term {
    /// `weight * (us - them)`.
    pub fn value(&self) -> i32 {
        self.weight * (self.us - self.them)
    }
}

/// All lines of four on a board, as masks, and the per-cell count of lines through it.
struct Lines<const W: usize, const H: usize, B: Bitboard = u64>(std::marker::PhantomData<B>);

impl<const W: usize, const H: usize, B: Bitboard> Lines<W, H, B> {
    /// (masks, count); at most 153 lines on a registered board (8x9). The tables are `u128`
    /// constants, narrowed to `B` where they are used.
    const MASKS: ([u128; 256], usize) = {
        let mut masks = [0u128; 256];
        let mut n = 0;
        let dirs: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
        let mut d = 0;
        while d < 4 {
            let (dc, dr) = dirs[d];
            let mut c = 0i32;
            while c < W as i32 {
                let mut r = 0i32;
                while r < H as i32 {
                    let (ec, er) = (c + 3 * dc, r + 3 * dr);
                    if ec >= 0 && ec < W as i32 && er >= 0 && er < H as i32 {
                        let mut m = 0u128;
                        let mut k = 0;
                        while k < 4 {
                            let cc = c + k * dc;
                            let rr = r + k * dr;
                            m |= 1u128 << (cc as usize * (H + 1) + rr as usize);
                            k += 1;
                        }
                        masks[n] = m;
                        n += 1;
                    }
                    r += 1;
                }
                c += 1;
            }
            d += 1;
        }
        (masks, n)
    };

    /// Number of lines through each cell bit.
    const THROUGH: [u8; 128] = {
        let mut t = [0u8; 128];
        let (masks, n) = Self::MASKS;
        let mut i = 0;
        while i < n {
            let mut b = 0;
            while b < 128 {
                if masks[i] & (1u128 << b) != 0 {
                    t[b] += 1;
                }
                b += 1;
            }
            i += 1;
        }
        t
    };

    /// The shifts between neighbouring cells of a line: up, down-right, right, up-right.
    const DIRS: [usize; 4] = [1, H, H + 1, H + 2];

    /// Per direction of [`Self::DIRS`], the lowest cell of every line of four (the others are
    /// that cell shifted by 1, 2 and 3 steps).
    const STARTS: [u128; 4] = {
        let mut starts = [0u128; 4];
        let (masks, n) = Self::MASKS;
        let mut i = 0;
        while i < n {
            let m = masks[i];
            let low = m.trailing_zeros() as usize;
            let step = (m & !(1u128 << low)).trailing_zeros() as usize - low;
            let mut d = 0;
            while d < 4 {
                if Self::DIRS[d] == step {
                    starts[d] |= 1u128 << low;
                }
                d += 1;
            }
            i += 1;
        }
        starts
    };

    /// Cells grouped by the number of lines through them: (count, cells); unused groups are
    /// empty. At most 16 distinct counts occur on a supported board.
    const BY_WEIGHT: [(i32, u128); 16] = {
        let mut groups = [(0i32, 0u128); 16];
        let through = Self::THROUGH;
        let mut b = 0;
        while b < 128 {
            let w = through[b] as i32;
            if w > 0 {
                let mut g = 0;
                while g < 16 && groups[g].1 != 0 && groups[g].0 != w {
                    g += 1;
                }
                assert!(g < 16, "more than 16 distinct line counts");
                groups[g] = (w, groups[g].1 | (1u128 << b));
            }
            b += 1;
        }
        groups
    };
}

/// Lines of four holding exactly two of `own`'s discs and none of `other`'s, bit-parallel: for
/// each direction, bit `s` of `a_k` says whether the line starting at `s` has an own disc at its
/// k-th cell.
#[inline(always)]
fn twos<const W: usize, const H: usize, B: Bitboard>(own: B, other: B) -> i32 {
    let free = !other;
    let mut n = 0;
    for (i, &d) in Lines::<W, H, B>::DIRS.iter().enumerate() {
        let (a0, a1, a2, a3) = (own, own >> d, own >> (2 * d), own >> (3 * d));
        let f = free & (free >> d) & (free >> (2 * d)) & (free >> (3 * d));
        let (x01, n01) = (a0 ^ a1, a0 & a1);
        let (x23, n23) = (a2 ^ a3, a2 & a3);
        let two = (n01 & !(x23 | n23)) | (n23 & !(x01 | n01)) | (x01 & x23);
        n += (two & f & B::from_u128(Lines::<W, H, B>::STARTS[i])).count_ones() as i32;
    }
    n
}

/// The feature counts of one side (`own` discs against `other` discs), in [`FEATURES`] order.
fn side_features<const W: usize, const H: usize, B: Bitboard>(
    own: B,
    other: B,
    mask: B,
    possible: B,
    own_rows: B,
) -> [i32; 5] {
    let threats = Position::<W, H, B>::winning_cells(own, mask);
    let playable = threats & possible;
    let later = threats & !playable;
    let good = (later & own_rows).count_ones() as i32;
    let other_threats = (later & !own_rows).count_ones() as i32;
    let twos = twos::<W, H, B>(own, other);
    let mut centre = 0;
    for &(weight, cells) in &Lines::<W, H, B>::BY_WEIGHT {
        centre += weight * (own & B::from_u128(cells)).count_ones() as i32;
    }
    [
        good,
        other_threats,
        playable.count_ones() as i32,
        twos,
        centre,
    ]
}

/// The terms of the evaluation of `p` from the side to move's view.
pub fn explain<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>) -> [Term; 5] {
    let (us, them) = (p.current(), p.opponent());
    let (mask, possible) = (p.mask(), p.possible());
    let odd = Geometry::<W, H, B>::odd_rows();
    let even = Geometry::<W, H, B>::board() & !odd;
    // the first player moves when the disc count is even
    let (us_rows, them_rows) = if p.moves().is_multiple_of(2) {
        (odd, even)
    } else {
        (even, odd)
    };
    let a = side_features::<W, H, B>(us, them, mask, possible, us_rows);
    let b = side_features::<W, H, B>(them, us, mask, possible, them_rows);
    std::array::from_fn(|i| Term {
        name: FEATURES[i],
        us: a[i],
        them: b[i],
        weight: WEIGHTS[i],
    })
}

/// The static evaluation of `p` from the side to move's view, clamped to `±MAX_EVAL`.
pub fn evaluate<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>) -> i32 {
    total(&explain(p))
}

/// The sum of the terms, clamped to `±MAX_EVAL`.
pub fn total(terms: &[Term]) -> i32 {
    terms
        .iter()
        .map(Term::value)
        .sum::<i32>()
        .clamp(-MAX_EVAL, MAX_EVAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    type P = Position<7, 6>;

    #[test]
    fn line_tables() {
        assert_eq!(Lines::<7, 6>::MASKS.1, 69);
        // the classic centre table: 3 4 5 7 5 4 3 on the bottom row
        let bottom: Vec<u8> = (0..7).map(|c| Lines::<7, 6>::THROUGH[c * 7]).collect();
        assert_eq!(bottom, vec![3, 4, 5, 7, 5, 4, 3]);
        assert_eq!(Lines::<7, 6>::THROUGH[3 * 7 + 2], 13);
        assert_eq!(Lines::<8, 9, u128>::MASKS.1, 153);
    }

    /// The straightforward count over every line, as a reference for the bit-parallel one.
    fn twos_reference<const W: usize, const H: usize, B: Bitboard>(own: B, other: B) -> i32 {
        let (masks, n) = Lines::<W, H, B>::MASKS;
        masks[..n]
            .iter()
            .filter(|&&m| m & other.to_u128() == 0 && (m & own.to_u128()).count_ones() == 2)
            .count() as i32
    }

    fn check_sizes<const W: usize, const H: usize, B: Bitboard>(seed: &mut u64) {
        let mut centre_total = 0;
        for &(w, cells) in &Lines::<W, H, B>::BY_WEIGHT {
            centre_total += w * cells.count_ones() as i32;
        }
        let by_cell: i32 = Lines::<W, H, B>::THROUGH.iter().map(|&t| t as i32).sum();
        assert_eq!(centre_total, by_cell);
        for _ in 0..300 {
            let mut p = Position::<W, H, B>::new();
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (*seed >> 40) as usize % (W * H);
            for _ in 0..len {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let c = (*seed >> 33) as usize % W;
                if p.can_play(c) && !p.is_game_over() {
                    p.play_col(c);
                }
            }
            let (a, b) = (p.current(), p.opponent());
            assert_eq!(
                twos::<W, H, B>(a, b),
                twos_reference::<W, H, B>(a, b),
                "{p:?}"
            );
            assert_eq!(
                twos::<W, H, B>(b, a),
                twos_reference::<W, H, B>(b, a),
                "{p:?}"
            );
        }
    }

    #[test]
    fn bit_parallel_counts_match_the_reference() {
        let mut seed = 7;
        check_sizes::<7, 6, u64>(&mut seed);
        check_sizes::<4, 4, u64>(&mut seed);
        check_sizes::<9, 6, u64>(&mut seed);
        check_sizes::<8, 7, u64>(&mut seed);
        check_sizes::<7, 8, u64>(&mut seed);
        check_sizes::<6, 9, u64>(&mut seed);
        check_sizes::<5, 5, u64>(&mut seed);
        check_sizes::<12, 4, u64>(&mut seed);
        check_sizes::<8, 9, u128>(&mut seed);
        check_sizes::<6, 12, u128>(&mut seed);
    }

    #[test]
    fn empty_board_is_even() {
        assert_eq!(evaluate(&P::new()), 0);
        assert_eq!(evaluate(&Position::<5, 4>::new()), 0);
    }

    #[test]
    fn mirror_images_evaluate_the_same() {
        for moves in [
            "4",
            "1",
            "12",
            "4453",
            "3321",
            "123456",
            "7766554",
            "2252576253462244",
        ] {
            let p = P::from_moves(moves).unwrap();
            assert_eq!(evaluate(&p), evaluate(&p.mirrored()), "{moves}");
            assert_eq!(explain(&p), explain(&p.mirrored()), "{moves}");
        }
    }

    #[test]
    fn centre_is_worth_more() {
        // after x plays the centre it is o's turn, so o is behind
        assert!(evaluate(&P::from_moves("4").unwrap()) < 0);
        // o answered on the edge: x is ahead
        assert!(evaluate(&P::from_moves("41").unwrap()) > 0);
    }

    #[test]
    fn threats_are_scored() {
        // x: 3,4,5 on the bottom row, o: 1,7,7; x to move has two playable threats (2 and 6)
        let q = P::from_moves("314757").unwrap();
        let e = explain(&q);
        assert_eq!(e[2].us, 2, "{e:?}");
        assert!(evaluate(&q) > 0);
        // o to move faces them
        let r = P::from_moves("31475").unwrap();
        let t = explain(&r);
        assert_eq!(t[2].them, 2, "{t:?}");
        assert!(evaluate(&r) < 0);
    }

    #[test]
    fn threat_parity() {
        // x threatens d3 (odd row: good for the first player), o threatens d2 (even: good for o)
        let p = P::from_board_string("7/7/7/xxx4/ooo4/xxo4 o").unwrap();
        let t = explain(&p);
        assert_eq!(
            (t[0].us, t[0].them, t[1].us, t[1].them),
            (1, 1, 0, 0),
            "{t:?}"
        );
        // x threatens d2 (even: not x's parity), o can fill d1 at once
        let p = P::from_board_string("7/7/7/7/xxx4/ooo4 x").unwrap();
        let t = explain(&p);
        assert_eq!((t[0].us, t[1].us, t[2].them), (0, 1, 1), "{t:?}");
    }
}
