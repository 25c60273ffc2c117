//! The rules: perft against published counts and a naive move generator, notation round trips,
//! and every kind of bad string.

use proptest::prelude::*;
use vier::bits::Bitboard;
use vier::board::{perft, BoardError, Position, Size, SizedJob};

#[test]
fn perft_7x6_matches_published_counts() {
    let expected = [1u64, 7, 49, 343, 2401, 16807, 117649, 823536, 5673234];
    let start = Position::<7, 6>::new();
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(perft(&start, d as u32), n, "perft({d})");
    }
}

/// A board as a grid of cells, with the rules written out the plain way: no bitboards.
struct Naive {
    w: usize,
    h: usize,
    cells: Vec<Vec<u8>>, // [col][row], 0 empty, 1 first, 2 second
    moves: usize,
}

impl Naive {
    fn new(w: usize, h: usize) -> Naive {
        Naive {
            w,
            h,
            cells: vec![vec![0; h]; w],
            moves: 0,
        }
    }
    fn height(&self, c: usize) -> usize {
        self.cells[c].iter().take_while(|&&v| v != 0).count()
    }
    fn won(&self, who: u8) -> bool {
        let (w, h) = (self.w as i32, self.h as i32);
        for c in 0..w {
            for r in 0..h {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    if (0..4).all(|k| {
                        let (cc, rr) = (c + dc * k, r + dr * k);
                        cc >= 0
                            && cc < w
                            && rr >= 0
                            && rr < h
                            && self.cells[cc as usize][rr as usize] == who
                    }) {
                        return true;
                    }
                }
            }
        }
        false
    }
    fn over(&self) -> bool {
        self.moves == self.w * self.h || self.won(1) || self.won(2)
    }
    fn perft(&mut self, d: u32) -> u64 {
        if d == 0 {
            return 1;
        }
        if self.over() {
            return 0;
        }
        let mut n = 0;
        for c in 0..self.w {
            let r = self.height(c);
            if r < self.h {
                self.cells[c][r] = 1 + (self.moves % 2) as u8;
                self.moves += 1;
                n += self.perft(d - 1);
                self.moves -= 1;
                self.cells[c][r] = 0;
            }
        }
        n
    }
}

#[test]
fn perft_matches_naive_generator_on_other_sizes() {
    // a depth that reaches wins and (on 4x4) full columns, for sizes across the range
    for (w, h, d, moves) in [
        (4, 4, 8, ""),
        (4, 4, 6, "1122"),
        (5, 4, 7, ""),
        (6, 5, 6, "33"),
        (8, 7, 5, "4455"),
        (9, 6, 5, ""),
        (4, 9, 7, "111"),
        (7, 8, 5, "4"),
        // the unsolved boards, past 64 bits up to 81: fours across the last columns and bit 64
        (13, 4, 5, ""),
        (13, 4, 5, "jjkkll"),
        (13, 4, 4, "mmmlll"),
        (12, 5, 5, "kkll"),
        (11, 6, 5, "jjkk"),
        (10, 7, 5, "ijij"),
        (9, 8, 5, ""),
        (9, 8, 4, "998877"),
        (9, 8, 5, "9999999"),
    ] {
        let size = Size::new(w, h).unwrap();
        let fast = vier::cli::perft(size, moves, d).unwrap();
        let mut naive = Naive::new(w, h);
        for ch in moves.chars() {
            let c = if ch.is_ascii_digit() {
                ch.to_digit(10).unwrap() as usize - 1
            } else {
                ch as usize - 'a' as usize
            };
            let r = naive.height(c);
            naive.cells[c][r] = 1 + (naive.moves % 2) as u8;
            naive.moves += 1;
        }
        assert_eq!(fast, naive.perft(d), "{w}x{h} from '{moves}' depth {d}");
    }
}

#[test]
fn every_supported_size_is_dispatched() {
    let sizes: Vec<Size> = Size::all().collect();
    assert_eq!(sizes.len(), 57);
    for s in sizes {
        struct Widths;
        impl SizedJob for Widths {
            type Output = (usize, u32);
            fn run<const W: usize, const H: usize, B: Bitboard>(self) -> (usize, u32) {
                (Position::<W, H, B>::CELLS, B::BITS)
            }
        }
        let (cells, bits) = s.run(Widths);
        assert_eq!(cells, s.cells());
        assert_eq!(bits, s.bits());
        assert_eq!(bits == 128, s.width() * (s.height() + 1) > 64, "{s}");
    }
    assert_eq!(Size::new(7, 9).unwrap().bits(), 128, "7x9 needs 70 bits");
    assert!(Size::new(3, 6).is_err());
    assert!(Size::new(14, 4).is_err());
    assert!(Size::new(9, 9).is_err());
    // the first unsolved boards: played, listed as unsolved
    for (w, h) in [(13, 4), (12, 5), (11, 6), (10, 7), (9, 8)] {
        let s = Size::new(w, h).unwrap();
        assert!(!s.published() && s.bits() == 128, "{s}");
    }
    assert!(Size::new(7, 6).unwrap().published());
    assert_eq!("10x4".parse::<Size>().unwrap().bits(), 64);
    assert_eq!("8x7".parse::<Size>().unwrap(), Size::new(8, 7).unwrap());
}

#[test]
fn notation_examples() {
    let p = Position::<7, 6>::from_moves("4453").unwrap();
    assert_eq!(p.to_board_string(), "7/7/7/7/3o3/2oxx2 x");
    assert_eq!(
        Position::<7, 6>::from_board_string("7/7/7/7/3o3/2oxx2 x").unwrap(),
        p
    );
    assert_eq!(Position::<7, 6>::new().to_board_string(), "7/7/7/7/7/7 x");
    assert_eq!(
        Position::<7, 6>::new().to_cfour_fen(),
        "7/7/7/7/7/7[PPPPPPPPPPPPPPPPPPPPPppppppppppppppppppppp] w - - 0 1"
    );
    assert_eq!(
        Position::<7, 6>::from_board_string(
            "7/7/7/7/7/7[PPPPPPPPPPPPPPPPPPPPPppppppppppppppppppppp] w - - 0 1"
        )
        .unwrap(),
        Position::new()
    );
}

/// Plays the legal ones among `cols` (0-based, taken modulo the width) until the game ends.
fn game<const W: usize, const H: usize>(cols: &[usize]) -> (Position<W, H>, String) {
    let mut p = Position::<W, H>::new();
    let mut s = String::new();
    for &c in cols {
        let c = c % W;
        if p.is_game_over() {
            break;
        }
        if p.can_play(c) {
            p.play_col(c);
            s.push(char::from_digit(c as u32 + 1, 10).unwrap());
        }
    }
    (p, s)
}

/// A game from `cols` (each taken modulo the width; moves into full columns or after the end
/// skipped) in every notation: moves, board string, cutechess FEN, each read back.
fn every_form_round_trips<const W: usize, const H: usize, B: Bitboard>(
    cols: &[usize],
) -> Result<(), TestCaseError> {
    let mut p = Position::<W, H, B>::new();
    let mut played = Vec::new();
    for &c in cols {
        let c = c % W;
        if p.can_play(c) && !p.is_game_over() {
            p.play_col(c);
            played.push(c);
        }
    }
    let moves = vier::notation::move_string(played.iter().copied(), W);
    prop_assert_eq!(Position::<W, H, B>::from_moves(&moves).unwrap(), p);
    let board = p.to_board_string();
    prop_assert_eq!(Position::<W, H, B>::from_board_string(&board).unwrap(), p);
    prop_assert_eq!(
        Position::<W, H, B>::from_board_string(&p.to_cfour_fen()).unwrap(),
        p
    );
    let replay = p.to_move_string().expect("a played game has a move string");
    prop_assert_eq!(replay.chars().count(), played.len());
    prop_assert_eq!(Position::<W, H, B>::from_moves(&replay).unwrap(), p);
    // letters name the same columns on every width
    let letters: String = played.iter().map(|&c| char::from(b'a' + c as u8)).collect();
    prop_assert_eq!(Position::<W, H, B>::from_moves(&letters).unwrap(), p);
    Ok(())
}

proptest! {
    #[test]
    fn every_notation_round_trips_on_every_size(
        size in 0..Size::all().count(),
        cols in proptest::collection::vec(0usize..12, 0..80),
    ) {
        let size = Size::all().nth(size).unwrap();
        struct RoundTrips<'a>(&'a [usize]);
        impl SizedJob for RoundTrips<'_> {
            type Output = Result<(), TestCaseError>;
            fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
                every_form_round_trips::<W, H, B>(self.0)
            }
        }
        size.run(RoundTrips(&cols))?;
    }

    #[test]
    fn round_trips(cols in proptest::collection::vec(0usize..9, 0..60)) {
        let (p, s) = game::<7, 6>(&cols);
        prop_assert_eq!(Position::<7, 6>::from_moves(&s).unwrap(), p);
        let b = p.to_board_string();
        prop_assert_eq!(Position::<7, 6>::from_board_string(&b).unwrap(), p);
        prop_assert_eq!(Position::<7, 6>::from_board_string(&p.to_cfour_fen()).unwrap(), p);
        let replay = p.to_move_string().expect("a played game has a move string");
        prop_assert_eq!(Position::<7, 6>::from_moves(&replay).unwrap(), p);

        let (q, _) = game::<9, 6>(&cols);
        prop_assert_eq!(Position::<9, 6>::from_board_string(&q.to_board_string()).unwrap(), q);
        let (r, _) = game::<4, 9>(&cols);
        prop_assert_eq!(Position::<4, 9>::from_board_string(&r.to_board_string()).unwrap(), r);
    }

    #[test]
    fn keys_identify_positions_and_mirrors(a in proptest::collection::vec(0usize..7, 0..30),
                                          b in proptest::collection::vec(0usize..7, 0..30)) {
        let (p, _) = game::<7, 6>(&a);
        let (q, _) = game::<7, 6>(&b);
        prop_assert_eq!(p.key() == q.key(), p == q);
        prop_assert_eq!(p.mirror_key(), p.mirrored().key());
        prop_assert_eq!(p.symmetric_key().0, p.mirrored().symmetric_key().0);
    }
}

#[test]
fn bad_move_strings_are_named() {
    type P = Position<7, 6>;
    assert_eq!(
        P::from_moves("44#").unwrap_err(),
        BoardError::BadChar { pos: 2, ch: '#' }
    );
    assert_eq!(
        P::from_moves("44a").unwrap_err(),
        BoardError::MixedNotation { pos: 2 }
    );
    assert_eq!(
        Position::<12, 4>::from_moves("jl1").unwrap_err(),
        BoardError::DigitOnWideBoard { pos: 2, width: 12 }
    );
    assert_eq!(
        Position::<12, 4>::from_moves("jm").unwrap_err(),
        BoardError::ColumnOutOfRange {
            pos: 1,
            col: 13,
            width: 12
        }
    );
    assert_eq!(
        P::from_moves("448").unwrap_err(),
        BoardError::ColumnOutOfRange {
            pos: 2,
            col: 8,
            width: 7
        }
    );
    assert_eq!(
        P::from_moves("40").unwrap_err(),
        BoardError::BadChar { pos: 1, ch: '0' }
    );
    assert_eq!(
        P::from_moves("4444444").unwrap_err(),
        BoardError::ColumnFull { pos: 6, col: 4 }
    );
    assert_eq!(
        P::from_moves("12121215").unwrap_err(),
        BoardError::MoveAfterGameEnd { pos: 7, col: 5 }
    );
    let msg = P::from_moves("4444444").unwrap_err().to_string();
    assert!(msg.contains("column 4") && msg.contains("full"), "{msg}");
}

#[test]
fn bad_board_strings_are_named() {
    type P = Position<7, 6>;
    let err = |s: &str| P::from_board_string(s).unwrap_err();
    assert_eq!(
        err("7/7/7/7/7 x"),
        BoardError::RowCount {
            found: 5,
            expected: 6
        }
    );
    assert_eq!(
        err("7/7/7/7/3o2/2oxx2 x"),
        BoardError::RowWidth {
            row: 5,
            found: 6,
            expected: 7
        }
    );
    assert_eq!(
        err("7/7/7/7/3o4/2oxx2 x"),
        BoardError::RowWidth {
            row: 5,
            found: 8,
            expected: 7
        }
    );
    assert_eq!(
        err("7/7/7/7/3q3/2oxx2 x"),
        BoardError::BadChar { pos: 9, ch: 'q' }
    );
    assert_eq!(
        err("7/7/7/x6/7/7 o"),
        BoardError::FloatingDisc { col: 1, row: 2 }
    );
    assert_eq!(
        err("7/7/7/7/7/xx5 o"),
        BoardError::DiscCounts { x: 2, o: 0 }
    );
    assert_eq!(
        err("7/7/7/7/7/oo5 x"),
        BoardError::DiscCounts { x: 0, o: 2 }
    );
    assert_eq!(
        err("7/7/7/7/3o3/2oxx2 o"),
        BoardError::SideToMove {
            given: 'o',
            expected: 'x'
        }
    );
    assert_eq!(err("7/7/7/7/3o3/2oxx2"), BoardError::MissingSideToMove);
    // a bottom row of 2 + 3 + 3 = 8 cells on a 7-wide board
    assert_eq!(
        err("7/7/7/7/3o3/2oxx3 x"),
        BoardError::RowWidth {
            row: 6,
            found: 8,
            expected: 7
        }
    );
    assert!(matches!(
        err("7/7/7/7/3o3/2oxx2 z"),
        BoardError::BadChar { ch: 'z', .. }
    ));
    // o four up column 1, x four along the bottom
    assert_eq!(err("7/7/o6/o6/o6/oxxxx2 x"), BoardError::BothWon);
    // x has four but it is x's turn: o moved last, after the game had ended
    assert_eq!(err("7/7/7/7/oo5/xxxxoo1 x"), BoardError::WinnerToMove);
}

#[test]
fn finished_positions_are_recognised() {
    let p = Position::<7, 6>::from_moves("1212121").unwrap();
    assert!(p.last_mover_won() && p.is_game_over());
    assert_eq!(vier::score::terminal(&p), Some(-18));
    // 4x4 filled without four in a row: no line of four anywhere
    let p = Position::<4, 4>::from_board_string("xxoo/ooxx/xxoo/ooxx x").unwrap();
    assert!(p.is_full() && !p.last_mover_won());
    assert_eq!(vier::score::terminal(&p), Some(0));
}

#[test]
fn four_cells() {
    let p = Position::<7, 6>::from_moves("1213141").unwrap();
    let (x, _) = p.discs();
    assert_eq!(Position::<7, 6>::four_cells(x).count_ones(), 4);
    let p = Position::<7, 6>::from_moves("4455667").unwrap();
    let (x, _) = p.discs();
    assert_eq!(Position::<7, 6>::four_cells(x), x);
}
