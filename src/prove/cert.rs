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
    heap.push(std::cmp::Reverse((tree.nodes[0].look.discs, 0u32)));
    let mut lines: BTreeMap<(u32, String), String> = BTreeMap::new();
    while let Some(std::cmp::Reverse((discs, id))) = heap.pop() {
        let n = &tree.nodes[id as usize];
        let (l, u) = claims[&id];
        if n.look.settled.is_some() {
            continue;
        }
        let (tmin, tmax) = n.look.range;
        // an expanded node keeps what jobs proved of it before (see `Tree`): where that alone
        // is the claim, it is a leaf; where its children show only a part of the claim, the
        // claim is a leaf too, which `--verify` solves
        let shown_below = (l <= tmin
            || n.children.iter().any(|&c| -tree.nodes[c as usize].hi >= l))
            && (u >= tmax || n.children.iter().all(|&c| -tree.nodes[c as usize].lo <= u));
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
                    let child = &tree.nodes[c as usize];
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
                        .filter(|&c| -tree.nodes[c as usize].hi >= l)
                        .min_by_key(|&c| (tree.nodes[c as usize].look.settled.is_none(), c))
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

/// Checks a certificate's back-up against the rules: every line a position, every node's
/// bounds shown by its children's lines (or the rules), the root's value the one stated.
/// A certificate whose header cannot be read is an error; the rest is in `errors`.
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
        let value: i32 = value.parse().map_err(|_| format!("value '{value}'"))?;
        let proof = Proof {
            size,
            root,
            goal,
            split: 0,
        };
        Ok::<_, String>((proof, value))
    })();
    let (proof, value) = head.map_err(|e| vec![e])?;
    let mut entries: HashMap<u128, (String, Entry)> = HashMap::new();
    let mut lines = 0;
    for (i, l) in text.lines().enumerate().skip(5) {
        lines += 1;
        let t: Vec<&str> = l.split(' ').collect();
        let parsed = match t[..] {
            [m, "node", a, b] => a.parse().ok().zip(b.parse().ok()).map(|(a, b)| {
                (
                    m,
                    Entry::Node {
                        at_least: a,
                        at_most: b,
                    },
                )
            }),
            [m, "leaf", v, n] if values => v.parse().ok().zip(n.parse().ok()).map(|(v, nodes)| {
                (
                    m,
                    Entry::Leaf {
                        at_least: v,
                        at_most: v,
                        nodes,
                    },
                )
            }),
            [m, "leaf", a, b, n] if !values => a
                .parse()
                .ok()
                .zip(b.parse().ok())
                .zip(n.parse().ok())
                .map(|((a, b), nodes)| {
                    (
                        m,
                        Entry::Leaf {
                            at_least: a,
                            at_most: b,
                            nodes,
                        },
                    )
                }),
            _ => None,
        };
        let Some((moves, entry)) = parsed else {
            errors.push(format!(
                "line {}: '{l}' is not a line of a certificate",
                i + 1
            ));
            continue;
        };
        let pos = match position(proof.size, moves) {
            Ok(p) => p,
            Err(e) => {
                errors.push(format!("line {}: {e}", i + 1));
                continue;
            }
        };
        let look = examine(&pos, proof.goal, false).look;
        if let Some(v) = look.settled {
            errors.push(format!(
                "line {}: {moves}: the rules settle it ({v}): it has no line",
                i + 1
            ));
            continue;
        }
        if entries
            .insert(look.key, (moves.to_string(), entry))
            .is_some()
        {
            errors.push(format!(
                "line {}: {moves}: a position (or its mirror image) twice",
                i + 1
            ));
        }
    }
    // the root says the value
    let root = match position(proof.size, &proof.root) {
        Ok(p) => p,
        Err(e) => return Err(vec![format!("root: {e}")]),
    };
    let root_look = examine(&root, proof.goal, false).look;
    // a position's bounds: the rules', or its line's
    let bound = |key: u128, settled: Option<i32>| -> Option<(i32, i32)> {
        match settled {
            Some(v) => Some((v, v)),
            None => entries.get(&key).map(|(_, e)| e.bounds()),
        }
    };
    if bound(root_look.key, root_look.settled) != Some((value, value)) {
        errors.push(format!(
            "the root {} is not shown to be {value}",
            proof.root
        ));
    }
    // every node's bounds from its children
    let mut leaves = Vec::new();
    let mut sorted: Vec<(&u128, &(String, Entry))> = entries.iter().collect();
    sorted.sort_by(|a, b| (a.1 .0.len(), &a.1 .0).cmp(&(b.1 .0.len(), &b.1 .0)));
    for (_, (moves, entry)) in sorted {
        let pos = position(proof.size, moves).expect("read above");
        match *entry {
            Entry::Leaf {
                at_least, at_most, ..
            } => {
                let (tmin, tmax) = examine(&pos, proof.goal, false).look.range;
                if !(tmin <= at_least && at_least <= at_most && at_most <= tmax) {
                    errors.push(format!(
                        "{moves}: leaf bounds {at_least}..{at_most} are not within {tmin}..{tmax}"
                    ));
                }
                leaves.push(Leaf {
                    moves: moves.clone(),
                    bounds: (at_least, at_most),
                    range: (tmin, tmax),
                });
            }
            Entry::Node { at_least, at_most } => {
                let ex = examine(&pos, proof.goal, true);
                let (tmin, tmax) = ex.look.range;
                if at_least > at_most {
                    errors.push(format!(
                        "{moves}: at least {at_least} and at most {at_most}"
                    ));
                }
                if at_least > tmin
                    && !ex.children.iter().any(|(_, _, c)| {
                        bound(c.key, c.settled).is_some_and(|(_, hi)| -hi >= at_least)
                    })
                {
                    errors.push(format!(
                        "{moves}: no child shows that it is at least {at_least}"
                    ));
                }
                if at_most < tmax {
                    for (col, _, c) in &ex.children {
                        let child = child_moves(moves, *col, proof.size.width());
                        match bound(c.key, c.settled) {
                            Some((lo, _)) if -lo <= at_most => {}
                            Some((lo, _)) => errors.push(format!(
                                "{moves}: its move to {child} may give {} > {at_most}",
                                -lo
                            )),
                            None => errors.push(format!(
                                "{moves}: {child} has no line, and at most {at_most} needs it"
                            )),
                        }
                    }
                }
            }
        }
        if errors.len() >= 20 {
            break;
        }
    }
    errors.truncate(20);
    Ok(Checked {
        proof,
        value,
        lines,
        leaves,
        errors,
    })
}
