//! The proof tree: the positions the front end has looked at, with what is known of each value,
//! and the choice of the next positions to hand out.
//!
//! A node is a position (a position and its mirror image are one node, so the tree is a graph:
//! positions reached by several move orders share a node). A node is a leaf until a job says it
//! was not proven within its budget; then it is expanded, and its children are leaves. Each node
//! has bounds `lo..=hi` on its value (side to move's view): a leaf's from the rules or its jobs,
//! an expanded node's backed up from its children by negamax (and kept within what jobs proved
//! of it before). A job answers only the question its leaf asks (below), so a leaf mostly has
//! one bound; when the question changes, a leaf whose bound does not answer the new one is
//! handed out again.
//!
//! Which leaf next: proof-number search on one question at a time, "is the root's value at
//! least `t`?" (win/draw/loss is two questions, `t` = 0 and `t` = 1; an exact score a few more).
//! A node at an even distance from the root asks the same question of its own value, one at an
//! odd distance its negation (`>= 1 - t`). A node whose bounds answer its question has proof
//! and disproof numbers 0 and infinite (or the reverse); an open leaf 1 and its number of moves
//! (those that do not lose at once: disproving it takes them all); an expanded node the least
//! disproof number of its children and the sum of their proof numbers. The most
//! proving leaf is found by walking down to the child of least disproof number, among the
//! children that still have a leaf nobody is working on (`free`): so several jobs at once go to
//! the best leaves that are not yet handed out. The first `t` is the front end's guess (see
//! `resume::first_question`), then the middle of what the root's bounds leave open.

use super::jobs::JobId;
use super::rules::{child_moves, examine, Goal, Look};
use crate::board::{AnyPosition, Size};
use std::collections::HashMap;

/// A proof or disproof number that cannot be reached.
pub const INF: u64 = u64::MAX / 4;

/// What a job found of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fact {
    /// Bounds on its value (win/draw/loss or the exact score, side to move's view; `lo == hi`
    /// for a value, `i32::MIN` or `i32::MAX` for no bound on that side) and the solver's nodes.
    Bounds { lo: i32, hi: i32, nodes: u64 },
    /// Not proven within the job's budget, after that many nodes.
    Unproven { nodes: u64 },
}

/// All the jobs found of a position: the bounds they proved, the nodes that took, and whether
/// one of them left it unproven (it is expanded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    pub lo: i32,
    pub hi: i32,
    pub nodes: u64,
    pub unproven: bool,
}

impl Default for Known {
    fn default() -> Known {
        Known {
            lo: i32::MIN,
            hi: i32::MAX,
            nodes: 0,
            unproven: false,
        }
    }
}

impl Known {
    /// Adds what one more job found.
    pub fn add(&mut self, fact: Fact) {
        match fact {
            Fact::Bounds { lo, hi, nodes } => {
                self.lo = self.lo.max(lo);
                self.hi = self.hi.min(hi);
                self.nodes = self.nodes.saturating_add(nodes);
            }
            Fact::Unproven { .. } => self.unproven = true,
        }
    }

    /// Whether the value itself is known (nothing a job says after that changes anything).
    pub fn is_value(&self) -> bool {
        self.lo == self.hi
    }
}

/// A node's place in the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// A leaf nobody works on.
    Open,
    /// A leaf handed out in this job.
    Pending(JobId),
    /// A leaf whose value the rules or jobs settle.
    Solved,
    /// Expanded: its value comes from its children.
    Expanded,
}

/// A node of the tree, as others read it ([`Tree::node`]): only the tree changes one.
pub struct Node {
    pub pos: AnyPosition,
    /// The moves from the empty board, as vier writes them.
    pub moves: String,
    pub look: Look,
    pub parents: Vec<u32>,
    pub children: Vec<u32>,
    pub work: Work,
    /// What the jobs that bounded it counted.
    pub nodes: Option<u64>,
    /// The bounds the rules and the jobs give it: a leaf's `lo..=hi`; an expanded node's stay
    /// within them.
    pub known: (i32, i32),
    pub lo: i32,
    pub hi: i32,
    pub pn: u64,
    pub dn: u64,
    /// It is unanswered and has an open leaf below (or is one).
    pub free: bool,
}

pub struct Tree {
    size: Size,
    goal: Goal,
    nodes: Vec<Node>,
    index: HashMap<u128, u32>,
    facts: HashMap<u128, Known>,
    root_discs: u32,
    /// Positions less than this many moves from the root are expanded without a job.
    split: u32,
    /// The question: is the root's value at least this?
    question: i32,
}

impl Tree {
    /// The tree of a proof of `root` (`moves` its move string), knowing `facts` already; the
    /// positions less than `split` moves from the root are expanded at once, without a job.
    /// The first question is `first` if the root's bounds leave it open, else their middle.
    pub fn new(
        root: AnyPosition,
        moves: &str,
        goal: Goal,
        facts: HashMap<u128, Known>,
        split: u32,
        first: i32,
    ) -> Tree {
        let look = examine(&root, goal, false).look;
        let mut t = Tree {
            size: root.size(),
            goal,
            nodes: Vec::new(),
            index: HashMap::new(),
            facts,
            root_discs: look.discs,
            split,
            question: 0,
        };
        let moves = if moves.is_empty() { "-" } else { moves };
        t.add_node(root, moves.to_string(), look);
        let (lo, hi) = t.bounds();
        t.question = if lo < first && first <= hi {
            first
        } else {
            t.middle()
        };
        t.recompute_all();
        t.settle_question();
        t
    }

    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// A node, to read (every id the tree hands out is one of its nodes).
    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    /// The move string of a node's position.
    pub fn moves(&self, id: u32) -> &str {
        &self.node(id).moves
    }

    /// The key of a node's position (its mirror image's too).
    pub fn key(&self, id: u32) -> u128 {
        self.node(id).look.key
    }

    /// Whether a node is a leaf nobody works on.
    pub fn is_open(&self, id: u32) -> bool {
        self.node(id).work == Work::Open
    }

    /// The root's bounds.
    pub fn bounds(&self) -> (i32, i32) {
        (self.nodes[0].lo, self.nodes[0].hi)
    }

    /// The root's value, once proven.
    pub fn value(&self) -> Option<i32> {
        let (lo, hi) = self.bounds();
        (lo == hi).then_some(lo)
    }

    pub fn question(&self) -> i32 {
        self.question
    }

    pub fn node_of(&self, key: u128) -> Option<u32> {
        self.index.get(&key).copied()
    }

    /// The node of the position a move string reaches, if it is in the tree.
    pub fn node_at(&self, moves: &str) -> Option<u32> {
        let p = super::rules::position(self.size, moves).ok()?;
        self.node_of(examine(&p, self.goal, false).look.key)
    }

    /// The question in the middle of the root's bounds: it splits them in two.
    fn middle(&self) -> i32 {
        let (lo, hi) = self.bounds();
        lo + (hi - lo + 1) / 2
    }

    /// The question a node asks of its own value: is it at least this?
    pub fn asks(&self, id: u32) -> i32 {
        self.asks_of(self.node(id))
    }

    fn asks_of(&self, n: &Node) -> i32 {
        if (n.look.discs - self.root_discs).is_multiple_of(2) {
            self.question
        } else {
            1 - self.question
        }
    }

    /// Adds a node for a position not in the tree, with what the facts say of it: a position a
    /// job left unproven is expanded at once, and so on down.
    fn add_node(&mut self, pos: AnyPosition, moves: String, look: Look) -> u32 {
        let id = self.push_node(pos, moves, look);
        if self.to_expand(&look) {
            self.expand(id);
        }
        id
    }

    /// Pushes and indexes a node for a position not in the tree, settled by its look or by a
    /// job's value where there is one; the caller decides whether to expand it.
    fn push_node(&mut self, pos: AnyPosition, moves: String, look: Look) -> u32 {
        let id = self.nodes.len() as u32;
        let (work, nodes, (lo, hi)) = match (look.settled, self.facts.get(&look.key)) {
            (Some(v), _) => (Work::Solved, None, (v, v)),
            (None, Some(k)) => {
                let b = within(look.range, k);
                let work = if b.0 == b.1 { Work::Solved } else { Work::Open };
                (work, (k.nodes > 0).then_some(k.nodes), b)
            }
            (None, None) => (Work::Open, None, look.range),
        };
        self.nodes.push(Node {
            pos,
            moves,
            look,
            parents: Vec::new(),
            children: Vec::new(),
            work,
            nodes,
            known: (lo, hi),
            lo,
            hi,
            pn: 1,
            dn: 1,
            free: false,
        });
        self.index.insert(look.key, id);
        id
    }

    /// Whether a new node is expanded at once: a job left it unproven, or it lies within the
    /// split (a value a job found is used instead).
    fn to_expand(&self, look: &Look) -> bool {
        look.settled.is_none()
            && match self.facts.get(&look.key) {
                Some(k) => k.unproven && !k.is_value(),
                None => look.discs - self.root_discs < self.split,
            }
    }

    /// Creates the children of `id` (a leaf left unproven), and theirs where facts say so.
    fn expand(&mut self, id: u32) {
        let mut todo = vec![id];
        while let Some(id) = todo.pop() {
            if self.nodes[id as usize].work == Work::Expanded {
                continue;
            }
            let (pos, moves) = {
                let n = &self.nodes[id as usize];
                (n.pos, n.moves.clone())
            };
            let width = self.size.width();
            let mut kids = Vec::new();
            for (col, child, look) in examine(&pos, self.goal, true).children {
                let c = match self.index.get(&look.key) {
                    Some(&c) => c,
                    None => {
                        let c = self.push_node(child, child_moves(&moves, col, width), look);
                        if self.to_expand(&look) {
                            todo.push(c);
                        }
                        c
                    }
                };
                if !kids.contains(&c) {
                    kids.push(c);
                    self.nodes[c as usize].parents.push(id);
                }
            }
            let n = &mut self.nodes[id as usize];
            n.children = kids;
            n.work = Work::Expanded;
        }
    }

    /// Records what a job found of the position with this key, and updates the tree.
    pub fn learn(&mut self, key: u128, fact: Fact) {
        let known = self.facts.entry(key).or_default();
        if known.is_value() {
            // a value is for ever; a rerun says the same
            return;
        }
        known.add(fact);
        let known = *known;
        let Some(&id) = self.index.get(&key) else {
            return;
        };
        let n = &mut self.nodes[id as usize];
        if n.look.settled.is_some() || n.work == Work::Solved {
            return;
        }
        n.known = within(n.look.range, &known);
        n.nodes = (known.nodes > 0).then_some(known.nodes);
        match fact {
            // an expanded node keeps its children's bounds, within what is known of it
            _ if n.work == Work::Expanded => self.propagate(vec![id]),
            Fact::Bounds { .. } => {
                (n.lo, n.hi) = n.known;
                n.work = if n.lo == n.hi {
                    Work::Solved
                } else {
                    Work::Open
                };
                self.propagate(vec![id]);
            }
            Fact::Unproven { .. } => {
                let before = self.nodes.len() as u32;
                self.expand(id);
                // the new nodes first, from the deepest, then the expanded leaf and up
                let mut fresh: Vec<u32> = (before..self.nodes.len() as u32).collect();
                fresh.sort_by_key(|&c| std::cmp::Reverse(self.nodes[c as usize].look.discs));
                for c in fresh {
                    self.recompute(c);
                }
                self.propagate(vec![id]);
            }
        }
        self.settle_question();
    }

    /// Marks an open leaf as handed out in `job`.
    pub fn hand_out(&mut self, id: u32, job: JobId) {
        self.nodes[id as usize].work = Work::Pending(job);
        self.propagate(vec![id]);
    }

    /// Gives a pending leaf back (its job was dropped): open again.
    pub fn give_back(&mut self, id: u32) {
        if let Work::Pending(_) = self.nodes[id as usize].work {
            self.nodes[id as usize].work = Work::Open;
            self.propagate(vec![id]);
        }
    }

    /// Whether the root's answer still depends on this node: it is the root, or it is
    /// unanswered and so is a parent whose answer depends on it. A job on a leaf that does not
    /// matter any more (a sibling answered the parent) proves nothing the proof needs.
    pub fn matters(&self, id: u32) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![id];
        while let Some(n) = todo.pop() {
            if n == 0 {
                return true;
            }
            let node = &self.nodes[n as usize];
            if !seen.insert(n) || node.pn == 0 || node.dn == 0 {
                continue;
            }
            todo.extend(node.parents.iter().copied());
        }
        false
    }

    /// The most proving open leaf, if the root's answer is not known and one is left.
    pub fn select(&self) -> Option<u32> {
        let mut n = 0u32;
        if !self.nodes[0].free {
            return None;
        }
        loop {
            let node = &self.nodes[n as usize];
            if node.work == Work::Open {
                return Some(n);
            }
            n = node
                .children
                .iter()
                .copied()
                .filter(|&c| self.nodes[c as usize].free)
                .min_by_key(|&c| {
                    let c = &self.nodes[c as usize];
                    (c.dn, c.pn)
                })?;
        }
    }

    /// Recomputes a node's bounds, numbers and flag from its own state and its children's;
    /// whether anything changed.
    fn recompute(&mut self, id: u32) -> bool {
        let n = &self.nodes[id as usize];
        let (mut lo, mut hi) = (n.lo, n.hi);
        if n.work == Work::Expanded {
            lo = i32::MIN;
            hi = i32::MIN;
            for &c in &n.children {
                let c = &self.nodes[c as usize];
                lo = lo.max(-c.hi);
                hi = hi.max(-c.lo);
            }
            lo = lo.max(n.known.0);
            hi = hi.min(n.known.1);
        }
        let asks = self.asks_of(n);
        let (pn, dn, free) = if lo >= asks {
            (0, INF, false)
        } else if hi < asks {
            (INF, 0, false)
        } else {
            // a leaf: one job proves or disproves it, as far as is known; but disproving takes
            // every move, so it counts its moves (the mobility initialisation: an expanded node
            // counts about what it did as a leaf, and its siblings do not look cheaper at once)
            let m = n.look.mobility.max(1) as u64;
            match n.work {
                Work::Open => (1, m, true),
                Work::Pending(_) | Work::Solved => (1, m, false),
                Work::Expanded => {
                    let mut pn = INF;
                    let mut dn = 0u64;
                    let mut free = false;
                    for &c in &n.children {
                        let c = &self.nodes[c as usize];
                        pn = pn.min(c.dn);
                        dn = (dn + c.pn).min(INF);
                        free |= c.free;
                    }
                    (pn, dn, free)
                }
            }
        };
        let n = &mut self.nodes[id as usize];
        let changed = (n.lo, n.hi, n.pn, n.dn, n.free) != (lo, hi, pn, dn, free);
        n.lo = lo;
        n.hi = hi;
        n.pn = pn;
        n.dn = dn;
        n.free = free;
        changed
    }

    /// Recomputes `start` and, while something changes, the nodes above.
    fn propagate(&mut self, start: Vec<u32>) {
        let mut todo = start;
        while let Some(id) = todo.pop() {
            if self.recompute(id) {
                todo.extend(self.nodes[id as usize].parents.iter().copied());
            }
        }
    }

    /// Every node again, children before parents (after the question changed).
    fn recompute_all(&mut self) {
        let mut order: Vec<u32> = (0..self.nodes.len() as u32).collect();
        order.sort_by_key(|&c| std::cmp::Reverse(self.nodes[c as usize].look.discs));
        for id in order {
            self.recompute(id);
        }
    }

    /// Once the root's answer to the question is known and its value is not, asks the next.
    fn settle_question(&mut self) {
        loop {
            let (lo, hi) = self.bounds();
            let answered = lo >= self.question || hi < self.question;
            if lo == hi || !answered {
                return;
            }
            self.question = self.middle();
            self.recompute_all();
        }
    }

    /// How many nodes there are of each kind: (all, expanded, pending, open unanswered).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let mut c = (self.nodes.len(), 0, 0, 0);
        for n in &self.nodes {
            match n.work {
                Work::Expanded => c.1 += 1,
                Work::Pending(_) => c.2 += 1,
                Work::Open if n.free => c.3 += 1,
                _ => {}
            }
        }
        c
    }
}

/// The bounds of `known` within `range`.
fn within(range: (i32, i32), known: &Known) -> (i32, i32) {
    (range.0.max(known.lo), range.1.min(known.hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::rules::position;

    fn tree_of(size: &str, split: u32) -> Tree {
        let size: Size = size.parse().unwrap();
        let root = position(size, "-").unwrap();
        Tree::new(root, "-", Goal::Weak, HashMap::new(), split, 0)
    }

    fn id(t: &Tree, moves: &str) -> u32 {
        t.node_at(moves).unwrap()
    }

    #[test]
    fn the_first_question_is_the_guess_and_the_next_what_is_left_open() {
        // 4x4, one move expanded: asked "won?" first; every first move at least a draw for
        // the opponent answers no, and the question moves to "at least a draw?"
        let size: Size = "4x4".parse().unwrap();
        let root = position(size, "-").unwrap();
        let mut t = Tree::new(root, "-", Goal::Weak, HashMap::new(), 1, 1);
        assert_eq!(t.question(), 1);
        let kids = t.nodes[0].children.clone();
        for &c in &kids {
            let key = t.nodes[c as usize].look.key;
            t.learn(
                key,
                Fact::Bounds {
                    lo: 0,
                    hi: i32::MAX,
                    nodes: 1,
                },
            );
        }
        assert_eq!(t.bounds(), (-1, 0));
        assert_eq!(t.question(), 0);
        // a guess the bounds do not leave open is not asked
        let t = Tree::new(root, "-", Goal::Weak, HashMap::new(), 1, 5);
        assert_eq!(t.question(), 0);
    }

    #[test]
    fn a_leaf_stops_mattering_once_a_sibling_answers_its_parent() {
        // 4x4, two moves expanded: the root asks ">= 0", the first moves ">= 1" and the
        // second moves ">= 0"; a second move at -1 proves its parent at least 1
        let mut t = tree_of("4x4", 2);
        let (g1, g2, other) = (id(&t, "12"), id(&t, "13"), id(&t, "21"));
        t.hand_out(g1, 1);
        t.hand_out(g2, 2);
        assert!(t.matters(g1) && t.matters(g2) && t.matters(other));
        t.learn(
            t.nodes[g1 as usize].look.key,
            Fact::Bounds {
                lo: -1,
                hi: -1,
                nodes: 10,
            },
        );
        assert_eq!(t.value(), None, "the root is not answered yet");
        assert!(!t.matters(g2), "its parent is at least 1 whatever it is");
        assert!(
            t.matters(other),
            "the root still needs the other first move"
        );
    }
}
