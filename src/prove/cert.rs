//! The certificate: the proof tree of a finished proof, with what is known of every leaf, in a
//! text a stranger can check without trusting the run that made it.
//!
//! ```text
//! # vier prove certificate 2
//! size 7x6
//! root -
//! goal weak
//! value 1
//! - node 1 1
//! 4 node 1 1
//! 44 node -1 -1
//! 445 leaf 1 1 183402
//! 4453 leaf -1 0 20544
//! ...
//! ```
//!
//! After the header, one line a position (a position and its mirror image share one):
//! `<moves> node <at least> <at most>` for a position whose bounds follow from its children's,
//! `<moves> leaf <at least> <at most> <nodes>` for a position jobs bounded (what `vier solve
//! --at-least` answered, within the values the position can have, and the nodes it took).
//! Positions the rules settle (a finished game, a win with the next disc) have no line: the
//! checker settles them itself. Only what the root's value needs is written: for a bound at
//! least `L` one child at most `-L`, for at most `U` every child at least `-U`. Version 1 wrote a
//! leaf's value alone, `<moves> leaf <value> <nodes>`; it is still read.
//!
//! [`check`] recomputes all of that from the rules ([`super::rules`]), and returns the leaves,
//! which `vier prove --verify` then asks again.

use super::rules::{child_moves, examine, position, Goal};
use super::state::Proof;
use super::tree::{Tree, Work};
use std::collections::{BTreeMap, BinaryHeap, HashMap};

const HEADER: &str = "# vier prove certificate 2";

/// The first version's header: its leaves are values.
const HEADER_1: &str = "# vier prove certificate 1";

/// The certificate of a proven tree.
pub fn write(tree: &Tree, proof: &Proof) -> String {
    let value = tree.value().expect("a proven root");
    let mut out = format!(
        "{HEADER}\nsize {}\nroot {}\ngoal {}\nvalue {value}\n",
        proof.size,
        proof.root,
        proof.goal.name()
    );
    // what each node must be shown to be, settled from the top down: a node's parents have one
    // disc fewer, so all of them are done before it
    let mut claims: HashMap<u32, (i32, i32)> = HashMap::new();
    let mut heap = BinaryHeap::new();
    claims.insert(0, (value, value));
    heap.push(std::cmp::Reverse((tree.root().look.discs, 0u32)));
    let mut lines: BTreeMap<(u32, String), String> = BTreeMap::new();
    while let Some(std::cmp::Reverse((discs, id))) = heap.pop() {
        let n = tree.node(id);
        let (l, u) = claims[&id];
        if n.look.settled.is_some() {
            continue;
        }
        let (tmin, tmax) = n.look.range;
        // an expanded node keeps what jobs proved of it before (see `Tree`): where that alone
        // is the claim, it is a leaf; where its children show only a part of the claim, the
        // claim is a leaf too, which `--verify` solves
        let shown_below = (l <= tmin || n.children.iter().any(|&c| -tree.node(c).hi >= l))
            && (u >= tmax || n.children.iter().all(|&c| -tree.node(c).lo <= u));
        let leaf = match n.work {
            Work::Expanded if n.known.0 >= l && n.known.1 <= u => Some(n.known),
            Work::Expanded if !shown_below => Some((l, u)),
            Work::Expanded => None,
            Work::Solved | Work::Open | Work::Pending(_) => Some((n.lo, n.hi)),
        };
        match leaf {
            Some((lo, hi)) => {
                lines.insert(
                    (discs, n.moves.clone()),
                    format!("{} leaf {lo} {hi} {}", n.moves, n.nodes.unwrap_or(0)),
                );
            }
            None => {
                lines.insert(
                    (discs, n.moves.clone()),
                    format!("{} node {l} {u}", n.moves),
                );
                let mut need = |c: u32, (cl, cu): (i32, i32), heap: &mut BinaryHeap<_>| {
                    let child = tree.node(c);
                    let e = claims.entry(c).or_insert_with(|| {
                        heap.push(std::cmp::Reverse((child.look.discs, c)));
                        child.look.range
                    });
                    e.0 = e.0.max(cl);
                    e.1 = e.1.min(cu);
                };
                if l > tmin {
                    // one child whose value is at most -l: the one with the lowest bound
                    let c = n
                        .children
                        .iter()
                        .copied()
                        .filter(|&c| -tree.node(c).hi >= l)
                        .min_by_key(|&c| (tree.node(c).look.settled.is_none(), c))
                        .expect("a proven lower bound has a child that shows it");
                    need(c, (i32::MIN, -l), &mut heap);
                }
                if u < tmax {
                    for &c in &n.children {
                        need(c, (-u, i32::MAX), &mut heap);
                    }
                }
            }
        }
    }
    for line in lines.values() {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A line of a certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Node {
        at_least: i32,
        at_most: i32,
    },
    Leaf {
        at_least: i32,
        at_most: i32,
        nodes: u64,
    },
}

impl Entry {
    /// The bounds the line states.
    fn bounds(&self) -> (i32, i32) {
        match *self {
            Entry::Node { at_least, at_most }
            | Entry::Leaf {
                at_least, at_most, ..
            } => (at_least, at_most),
        }
    }
}

/// A leaf of a certificate, to ask again.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub moves: String,
    /// What the certificate says of it, `lo..=hi`.
    pub bounds: (i32, i32),
    /// The values the position may have, by the rules.
    pub range: (i32, i32),
    /// The solver's nodes the proof says it took.
    pub nodes: u64,
}

/// A certificate read: what it proves, the leaves to solve again, and what does not hold.
#[derive(Clone, Debug)]
pub struct Checked {
    pub proof: Proof,
    pub value: i32,
    /// Lines read.
    pub lines: usize,
    pub leaves: Vec<Leaf>,
    /// What does not hold (at most 20 of them), each naming its position: a line that is no
    /// position, a node whose bounds its children's lines do not show, a root of another value.
    pub errors: Vec<String>,
}

/// Whether what a solver found of a leaf (`found`, bounds `lo..=hi` with `i32::MIN` or
/// `i32::MAX` for no bound on that side) lies within what the certificate says of it: the
/// solver's bounds are taken within the values the position may have first.
pub fn leaf_agrees(leaf: &Leaf, found: (i32, i32)) -> Result<(), String> {
    let ((lo, hi), (tmin, tmax)) = (leaf.bounds, leaf.range);
    let (a, b) = (found.0.max(tmin), found.1.min(tmax));
    if lo <= a && b <= hi {
        Ok(())
    } else {
        Err(format!(
            "leaf {}: the certificate says {}, the solver says {}",
            leaf.moves,
            span(lo, hi, (tmin, tmax)),
            span(a, b, (tmin, tmax))
        ))
    }
}

/// Bounds `lo..=hi` of a position whose values lie in `range`, in words: `3`, `at least 0`,
/// `at most -1`, `1..5`.
pub fn span(lo: i32, hi: i32, range: (i32, i32)) -> String {
    match (lo, hi) {
        _ if lo == hi => lo.to_string(),
        _ if hi >= range.1 => format!("at least {lo}"),
        _ if lo <= range.0 => format!("at most {hi}"),
        _ => format!("{lo}..{hi}"),
    }
}

/// A line read: where it is, its position's move string, what it says, and the values the
/// position may have by the rules.
struct Read {
    line: usize,
    moves: String,
    entry: Entry,
    range: (i32, i32),
}

/// The most errors a check reports.
const MOST_ERRORS: usize = 20;

/// Checks a certificate's back-up against the rules: every line a position below the root (a
/// child of the root's or of a node's line), once, with bounds within the values it may have;
/// every node's bounds shown by its children's lines (or the rules); the root's value the one
/// stated. Every number is checked against the position's range before it is used, and the
/// back-up negates in `i64`, so no number a certificate holds can wrap. A certificate whose
/// header cannot be read is an error; the rest is in `errors`, each with its line.
pub fn check(text: &str) -> Result<Checked, Vec<String>> {
    let mut errors = Vec::new();
    let mut it = text.lines();
    let first = it.next();
    let values = first == Some(HEADER_1);
    if first != Some(HEADER) && !values {
        return Err(vec![format!(
            "not a certificate: its first line is not '{HEADER}'"
        )]);
    }
    let mut field = |name: &str| -> Result<String, String> {
        it.next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix(' '))
            .map(str::to_string)
            .ok_or_else(|| format!("the header's '{name}' line is missing"))
    };
    let head = (|| {
        let size = field("size")?;
        let size = size.parse().map_err(|e| format!("size: {e}"))?;
        let root = field("root")?;
        let goal = field("goal")?;
        let goal = Goal::parse(&goal).ok_or(format!("goal '{goal}' is neither weak nor exact"))?;
        let value = field("value")?;
        let value: i32 = number(&value).ok_or(format!("value '{value}' is not a number"))?;
        let proof = Proof {
            size,
            root,
            goal,
            split: 0,
        };
        Ok::<_, String>((proof, value))
    })();
    let (proof, value) = head.map_err(|e| vec![e])?;
    let root = position(proof.size, &proof.root).map_err(|e| vec![format!("root: {e}")])?;
    let root_look = examine(&root, proof.goal, false).look;
    if !(root_look.range.0..=root_look.range.1).contains(&value) {
        return Err(vec![format!(
            "value {value}: the root {} may only be {}..{}",
            proof.root, root_look.range.0, root_look.range.1
        )]);
    }
    let mut entries: HashMap<u128, Read> = HashMap::new();
    let mut lines = 0;
    for (i, l) in text.lines().enumerate().skip(5) {
        lines += 1;
        let at = i + 1;
        let t: Vec<&str> = l.split(' ').collect();
        let parsed = match t[..] {
            [m, "node", a, b] => number(a).zip(number(b)).map(|(a, b)| {
                (
                    m,
                    Entry::Node {
                        at_least: a,
                        at_most: b,
                    },
                )
            }),
            [m, "leaf", v, n] if values => number(v).zip(number(n)).map(|(v, nodes)| {
                (
                    m,
                    Entry::Leaf {
                        at_least: v,
                        at_most: v,
                        nodes,
                    },
                )
            }),
            [m, "leaf", a, b, n] if !values => {
                number(a)
                    .zip(number(b))
                    .zip(number(n))
                    .map(|((a, b), nodes)| {
                        (
                            m,
                            Entry::Leaf {
                                at_least: a,
                                at_most: b,
                                nodes,
                            },
                        )
                    })
            }
            _ => None,
        };
        let Some((moves, entry)) = parsed else {
            errors.push(format!("line {at}: '{l}' is not a line of a certificate"));
            continue;
        };
        let pos = match position(proof.size, moves) {
            Ok(p) => p,
            Err(e) => {
                errors.push(format!("line {at}: not a position of {}: {e}", proof.size));
                continue;
            }
        };
        let look = examine(&pos, proof.goal, false).look;
        if let Some(v) = look.settled {
            errors.push(format!(
                "line {at}: {moves}: the rules settle it ({v}): it has no line"
            ));
            continue;
        }
        // every number within the position's range before any arithmetic
        let (lo, hi) = entry.bounds();
        let (tmin, tmax) = look.range;
        if !(tmin <= lo && lo <= hi && hi <= tmax) {
            errors.push(format!(
                "line {at}: {moves}: bounds {lo}..{hi} are not within {tmin}..{tmax}, the values \
                 it may have"
            ));
            continue;
        }
        if let Some(before) = entries.get(&look.key) {
            errors.push(format!(
                "line {at}: {moves}: the position (or its mirror image) of line {} again",
                before.line
            ));
            continue;
        }
        entries.insert(
            look.key,
            Read {
                line: at,
                moves: moves.to_string(),
                entry,
                range: look.range,
            },
        );
    }
    // a position's bounds: the rules', or its line's (within its range: checked above)
    let bound = |key: u128, settled: Option<i32>| -> Option<(i64, i64)> {
        match settled {
            Some(v) => Some((v.into(), v.into())),
            None => entries.get(&key).map(|r| {
                let (lo, hi) = r.entry.bounds();
                (lo.into(), hi.into())
            }),
        }
    };
    if bound(root_look.key, root_look.settled) != Some((value.into(), value.into())) {
        errors.push(format!(
            "the root {} is not shown to be {value}",
            proof.root
        ));
    }
    // the lines below the root: the root's, and the children of every node line reached
    let mut reached = std::collections::HashSet::new();
    let mut todo = vec![root_look.key];
    while let Some(key) = todo.pop() {
        let Some(r) = entries.get(&key) else { continue };
        if !reached.insert(key) {
            continue;
        }
        if let Entry::Node { .. } = r.entry {
            let pos = position(proof.size, &r.moves).expect("read above");
            for (_, _, c) in examine(&pos, proof.goal, true).children {
                if c.settled.is_none() && entries.contains_key(&c.key) {
                    todo.push(c.key);
                }
            }
        }
    }
    let mut sorted: Vec<(&u128, &Read)> = entries.iter().collect();
    sorted.sort_by_key(|(_, r)| r.line);
    for (key, r) in &sorted {
        if !reached.contains(*key) {
            errors.push(format!(
                "line {}: {}: not a position below the root: no node line has it as a child",
                r.line, r.moves
            ));
        }
    }
    // every node's bounds from its children
    let mut leaves = Vec::new();
    for (key, r) in sorted {
        if errors.len() >= MOST_ERRORS {
            break;
        }
        if !reached.contains(key) {
            continue;
        }
        let (moves, at) = (&r.moves, r.line);
        match r.entry {
            Entry::Leaf {
                at_least,
                at_most,
                nodes,
            } => leaves.push(Leaf {
                moves: moves.clone(),
                bounds: (at_least, at_most),
                range: r.range,
                nodes,
            }),
            Entry::Node { at_least, at_most } => {
                let pos = position(proof.size, moves).expect("read above");
                let ex = examine(&pos, proof.goal, true);
                let (tmin, tmax) = r.range;
                let (l, u) = (i64::from(at_least), i64::from(at_most));
                if at_least > tmin
                    && !ex
                        .children
                        .iter()
                        .any(|(_, _, c)| bound(c.key, c.settled).is_some_and(|(_, hi)| -hi >= l))
                {
                    errors.push(format!(
                        "line {at}: {moves}: no child shows that it is at least {at_least}"
                    ));
                }
                if at_most < tmax {
                    for (col, _, c) in &ex.children {
                        let child = child_moves(moves, *col, proof.size.width());
                        match bound(c.key, c.settled) {
                            Some((lo, _)) if -lo <= u => {}
                            Some((lo, _)) => errors.push(format!(
                                "line {at}: {moves}: its move to {child} may give {} > {at_most}",
                                -lo
                            )),
                            None => errors.push(format!(
                                "line {at}: {moves}: {child} has no line, and at most {at_most} \
                                 needs it"
                            )),
                        }
                    }
                }
            }
        }
    }
    errors.truncate(MOST_ERRORS);
    Ok(Checked {
        proof,
        value,
        lines,
        leaves,
        errors,
    })
}

/// A number as vier writes it ([`super::jobs::number`]), or none.
fn number<T: std::str::FromStr>(s: &str) -> Option<T> {
    super::jobs::number(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::Bitboard;
    use crate::board::{AnyPosition, Position, PositionJob, Size};
    use crate::solver::Solver;
    use proptest::prelude::*;

    /// The value of `p` by the solver (win/draw/loss for `Weak`).
    fn solved(solver: &mut Solver, p: &AnyPosition, goal: Goal) -> i32 {
        struct Solve<'a>(&'a mut Solver, Goal);
        impl PositionJob for Solve<'_> {
            type Output = i32;
            fn run<const W: usize, const H: usize, B: Bitboard>(self, p: Position<W, H, B>) -> i32 {
                match self.1 {
                    Goal::Weak => self.0.solve_weak(&p),
                    Goal::Exact => self.0.solve(&p),
                }
                .expect("no limit")
            }
        }
        p.run(Solve(solver, goal))
    }

    /// A true certificate of `root`: node lines `depth` moves down, then leaves, every line
    /// the position's value from the solver.
    fn true_certificate(
        solver: &mut Solver,
        size: Size,
        root: &str,
        goal: Goal,
        depth: u32,
    ) -> (i32, Vec<String>) {
        let pos = position(size, root).unwrap();
        let value = solved(solver, &pos, goal);
        let mut lines = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut todo = std::collections::VecDeque::from([(root.to_string(), pos, 0)]);
        while let Some((moves, pos, d)) = todo.pop_front() {
            let ex = examine(&pos, goal, true);
            if ex.look.settled.is_some() || !seen.insert(ex.look.key) {
                continue;
            }
            let v = solved(solver, &pos, goal);
            if d == depth {
                lines.push(format!("{moves} leaf {v} {v} 0"));
                continue;
            }
            lines.push(format!("{moves} node {v} {v}"));
            for (col, child, _) in ex.children {
                todo.push_back((child_moves(&moves, col, size.width()), child, d + 1));
            }
        }
        (value, lines)
    }

    fn text(size: Size, root: &str, goal: Goal, value: i32, lines: &[String]) -> String {
        let mut t = format!(
            "{HEADER}\nsize {size}\nroot {root}\ngoal {}\nvalue {value}\n",
            goal.name()
        );
        for l in lines {
            t.push_str(l);
            t.push('\n');
        }
        t
    }

    /// Whether `--verify` would accept the certificate, its leaves solved here: the root's
    /// value it proves, or why not.
    fn accepted(solver: &mut Solver, text: &str) -> Result<i32, Vec<String>> {
        let c = check(text)?;
        let mut errors = c.errors.clone();
        for leaf in &c.leaves {
            let p = position(c.proof.size, &leaf.moves).unwrap();
            let v = solved(solver, &p, c.proof.goal);
            if let Err(e) = leaf_agrees(leaf, (v, v)) {
                errors.push(e);
            }
        }
        if errors.is_empty() {
            Ok(c.value)
        } else {
            Err(errors)
        }
    }

    /// The certificate of issue 74: the empty 5x4 board (a draw) as a loss, from bounds below
    /// the score range whose negation wrapped.
    const FORGED: &str = include_str!("../../tests/data/prove/forged-5x4.cert");

    #[test]
    fn the_forged_certificate_of_issue_74_is_refused_line_by_line() {
        let c = check(FORGED).unwrap();
        assert!(
            c.errors
                .iter()
                .any(|e| e.starts_with("line 7: 1: bounds -2147483648..-2147483647 are not")),
            "{:?}",
            c.errors
        );
        // every line below the root, each with its number
        for line in 7..=14 {
            assert!(
                c.errors
                    .iter()
                    .any(|e| e.starts_with(&format!("line {line}: ")) && e.contains("not within")),
                "line {line}: {:?}",
                c.errors
            );
        }
        assert!(c.errors.iter().any(|e| e.starts_with("line 6: -: ")));
    }

    #[test]
    fn numbers_past_the_score_range_are_refused_before_any_arithmetic() {
        let mut solver = Solver::new(1);
        let size: Size = "5x4".parse().unwrap();
        for goal in [Goal::Weak, Goal::Exact] {
            let (value, lines) = true_certificate(&mut solver, size, "-", goal, 1);
            assert_eq!(
                accepted(&mut solver, &text(size, "-", goal, value, &lines)),
                Ok(0)
            );
            for extreme in [i32::MIN, i32::MIN + 1, -21, 21, i32::MAX - 1, i32::MAX] {
                for field in [2, 3] {
                    let mut bad = lines.clone();
                    let mut f: Vec<String> = bad[1].split(' ').map(String::from).collect();
                    f[field] = extreme.to_string();
                    bad[1] = f.join(" ");
                    let e = check(&text(size, "-", goal, value, &bad)).unwrap().errors;
                    assert!(
                        e.iter().any(|e| e.starts_with("line 7: ")),
                        "{goal:?} {extreme} {field}: {e:?}"
                    );
                }
            }
            // a value past the range, and numbers that are not numbers as vier writes them
            for v in [
                "-2147483648",
                "2147483647",
                "99999999999",
                "+0",
                " 0",
                "0x0",
            ] {
                let t =
                    text(size, "-", goal, 0, &lines).replace("value 0\n", &format!("value {v}\n"));
                assert!(
                    check(&t).is_err() || !check(&t).unwrap().errors.is_empty(),
                    "{v}"
                );
            }
        }
    }

    #[test]
    fn a_line_off_the_tree_twice_or_of_another_size_is_refused_with_its_line() {
        let mut solver = Solver::new(1);
        let size: Size = "5x4".parse().unwrap();
        let (value, lines) = true_certificate(&mut solver, size, "3", Goal::Weak, 1);
        let errors = |extra: &str| {
            let mut l = lines.clone();
            l.push(extra.to_string());
            check(&text(size, "3", Goal::Weak, value, &l))
                .unwrap()
                .errors
        };
        let at = 6 + lines.len();
        // not below the root (another first move), the root again, its mirror image again, a
        // column of a wider board, a column of the letters' notation mixed in
        for (extra, says) in [
            ("2 node -1 1", "not a position below the root"),
            ("3 node -1 1", "again"),
            ("31 leaf -1 1 0", "again"),
            ("36 leaf -1 1 0", "not a position of 5x4"),
            ("3a leaf -1 1 0", "not a position of 5x4"),
            ("3 node 0", "not a line of a certificate"),
        ] {
            let e = errors(extra);
            assert!(
                e.iter()
                    .any(|e| e.starts_with(&format!("line {at}: ")) && e.contains(says)),
                "{extra}: {e:?}"
            );
        }
    }

    /// Proptest's cases: enough to meet each mutation many times, few enough for seconds.
    const CASES: u32 = 96;

    /// A number for a mutation: the ends of `i32`, the edges of the score ranges, any.
    fn a_number() -> impl Strategy<Value = i32> {
        prop_oneof![
            prop::sample::select(vec![
                i32::MIN,
                i32::MIN + 1,
                -11,
                -10,
                -9,
                -2,
                -1,
                0,
                1,
                2,
                9,
                10,
                11,
                i32::MAX - 1,
                i32::MAX
            ]),
            any::<i32>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(CASES))]

        #[test]
        fn verify_accepts_only_a_certificate_whose_claim_the_solver_confirms(
            wide in any::<bool>(),
            root_cols in prop::collection::vec(0usize..5, 0..5),
            exact in any::<bool>(),
            depth in 1u32..3,
            mutations in prop::collection::vec(
                (0u8..9, any::<prop::sample::Index>(), a_number(), a_number(),
                 prop::collection::vec(0usize..5, 1..4)),
                0..3,
            ),
        ) {
            let size: Size = if wide { "5x4" } else { "4x4" }.parse().unwrap();
            let goal = if exact { Goal::Exact } else { Goal::Weak };
            // the root: the columns that are legal and leave the game on
            let mut root = "-".to_string();
            for c in root_cols {
                let next = child_moves(&root, c % size.width(), size.width());
                if position(size, &next).is_ok_and(|p| examine(&p, goal, false).look.settled.is_none()) {
                    root = next;
                }
            }
            let mut solver = Solver::new(1);
            let (truth, mut lines) = true_certificate(&mut solver, size, &root, goal, depth);
            let (mut header_size, mut value) = (size.to_string(), truth);
            prop_assert_eq!(accepted(&mut solver, &text(size, &root, goal, value, &lines)), Ok(truth));
            for (kind, at, n, m, cols) in mutations {
                let k = if lines.is_empty() { None } else { Some(at.index(lines.len())) };
                let set = |l: &mut String, field: usize, to: i32| {
                    let mut f: Vec<String> = l.split(' ').map(String::from).collect();
                    if field < f.len() {
                        f[field] = to.to_string();
                    }
                    *l = f.join(" ");
                };
                match (kind, k) {
                    (0, Some(k)) => set(&mut lines[k], 2, n),
                    (1, Some(k)) => set(&mut lines[k], 3, n),
                    (2, Some(k)) => { lines.remove(k); }
                    (3, _) => {
                        let mut moves = root.clone();
                        for c in cols {
                            moves = child_moves(&moves, c, size.width());
                        }
                        let kind = if n % 2 == 0 { "node" } else { "leaf" };
                        let (a, b) = (n.min(m), n.max(m));
                        lines.push(if kind == "node" {
                            format!("{moves} node {a} {b}")
                        } else {
                            format!("{moves} leaf {a} {b} 0")
                        });
                    }
                    (4, _) => value = n,
                    (5, Some(k)) => { let l = lines[k].clone(); lines.push(l); }
                    (6, Some(k)) => {
                        lines[k] = if lines[k].contains(" node ") {
                            lines[k].replace(" node ", " leaf ") + " 0"
                        } else {
                            let mut f: Vec<&str> = lines[k].split(' ').collect();
                            f.pop();
                            f.join(" ").replace(" leaf ", " node ")
                        };
                    }
                    (7, _) => header_size = if wide { "4x4" } else { "5x4" }.into(),
                    // the issue's forgery: the root claims its least value, every line below
                    // says it may be as low as i32::MIN (whose negation wraps in i32)
                    (8, Some(_)) => {
                        let least = examine(&position(size, &root).unwrap(), goal, false).look.range.0;
                        value = least;
                        for (i, l) in lines.iter_mut().enumerate() {
                            if i == 0 {
                                *l = format!("{root} node {least} {least}");
                            } else {
                                set(l, 2, i32::MIN);
                            }
                        }
                    }
                    _ => {}
                }
            }
            let t = text(size, &root, goal, value, &lines)
                .replacen(&format!("size {size}"), &format!("size {header_size}"), 1);
            if header_size != size.to_string() {
                // a table holds one size's positions: the other size's solves start afresh
                solver = Solver::new(1);
            }
            if let Ok(v) = accepted(&mut solver, &t) {
                // what it proves is true: of this board, this root, the solver's value
                let c = check(&t).unwrap();
                let p = position(c.proof.size, &c.proof.root).unwrap();
                prop_assert_eq!(v, solved(&mut solver, &p, c.proof.goal), "{}", t);
            }
        }
    }
}
