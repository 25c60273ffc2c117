//! The published result of every board size's empty board, for the page to quote where it
//! cannot prove the empty board itself: John Tromp's results (every board with width + height
//! up to 15, and 8x8) and Christophe Steininger's (width + height = 16, and some larger
//! boards), as `tests/data/sizes.md` lists them (a test checks this copy against it).

use crate::board::Size;

/// `size result ends-on-move`, as in `tests/data/sizes.md`: `1st` or `2nd` wins, or `draw`;
/// `?` where the move was not published.
const RESULTS: &str = "
    4x4 draw 16
    5x4 draw 20
    6x4 2nd 24
    7x4 draw 28
    8x4 2nd 32
    9x4 2nd 36
    4x5 draw 20
    5x5 draw 25
    6x5 draw 30
    7x5 draw 35
    8x5 1st 39
    9x5 1st 41
    4x6 draw 24
    5x6 draw 30
    6x6 2nd 36
    7x6 1st 41
    8x6 2nd 48
    9x6 2nd 52
    4x7 draw 28
    5x7 draw 35
    6x7 1st 41
    7x7 draw 49
    8x7 1st 53
    4x8 draw 32
    5x8 draw 40
    6x8 2nd 48
    7x8 1st 55
    4x9 draw 36
    5x9 draw 45
    6x9 1st 53
    10x4 2nd 40
    11x4 2nd 44
    12x4 2nd 48
    10x5 1st 47
    11x5 1st 51
    10x6 1st 59
    9x7 1st 55
    8x8 2nd 62
    7x9 draw 63
    8x9 1st ?
    4x10 draw 40
    5x10 draw 50
    6x10 2nd 60
    7x10 1st 69
    4x11 draw 44
    5x11 draw 55
    6x11 1st 63
    4x12 draw 48
    5x12 draw 60
    6x12 2nd 72
    4x13 draw 52
    5x13 draw 65
";

/// Who published the result of `size`.
fn source(size: Size) -> &'static str {
    let (w, h) = (size.width(), size.height());
    if w + h <= 15 || (w, h) == (8, 8) {
        "John Tromp"
    } else {
        "Christophe Steininger"
    }
}

/// The published result of `size`'s empty board in a sentence, with its source; `None` for a
/// size with none.
pub fn empty_board(size: Size) -> Option<String> {
    let name = size.to_string();
    let line = RESULTS
        .lines()
        .map(str::split_whitespace)
        .find_map(|mut f| (f.next() == Some(name.as_str())).then(|| f.collect::<Vec<_>>()))?;
    let result = match line.first().copied()? {
        "1st" => "the first player wins",
        "2nd" => "the second player wins",
        _ => "a draw",
    };
    let ends = match line.get(1).copied() {
        Some(m) if m != "?" => format!(", the game ending on move {m}"),
        _ => String::new(),
    };
    Some(format!(
        "Published for the empty {name} board: {result} with perfect play{ends} ({}).",
        source(size)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_has_its_published_result_as_tests_data_sizes_md_lists_it() {
        let data = include_str!("../../tests/data/sizes.md");
        let mut rows = 0;
        for line in data
            .lines()
            .filter(|l| l.starts_with("| ") && !l.contains("width"))
        {
            let f: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let Ok(size) = f[0].parse::<Size>() else {
                continue;
            };
            rows += 1;
            assert!(
                RESULTS
                    .lines()
                    .any(|l| l.split_whitespace().collect::<Vec<_>>() == f[..3]),
                "{}",
                f[0]
            );
            assert!(empty_board(size).is_some(), "{size}");
        }
        // the open problems (13x4, 12x5, ...) have no published result
        assert_eq!(rows, Size::all().filter(Size::published).count());
        let text = empty_board("7x6".parse().unwrap()).unwrap();
        assert!(text.contains("the first player wins"), "{text}");
        assert!(text.contains("move 41"), "{text}");
        assert!(empty_board("5x13".parse().unwrap())
            .unwrap()
            .contains("Steininger"));
    }
}
