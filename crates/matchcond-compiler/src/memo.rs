//! Shared attribute prefixes.
//!
//! Variables do not change during an evaluation, so when several attributes of one program
//! walk the same chain of plain field selections from the same variable
//! (`has(object.metadata.labels) && 'app' in object.metadata.labels &&
//! object.metadata.labels['app'] == 'web'`), the node a prefix reaches can be remembered the
//! first time and reused. The cost charged is unchanged: a reused prefix is charged as if
//! each of its qualifiers had been applied again, as cel-go does.

use matchcond_runtime::plan::{Attr, AttrRoot, MemoPoint, Node, QualKind};

/// Assigns memo slots to the shared prefixes of a program's attributes; returns the number
/// of slots the evaluation needs.
pub(crate) fn assign_memos(root: &mut Node) -> usize {
    // Each attribute's variable and leading plain field names, in visiting order.
    let mut chains: Vec<(usize, Vec<Box<str>>)> = Vec::new();
    visit_attrs(root, &mut |a| chains.push(chain(a)));
    let walkers = chains.iter().filter(|(_, c)| !c.is_empty()).count();
    if walkers < 2 {
        return 0;
    }
    // How many attributes pass through a prefix (the variable and `len` leading fields).
    let users = |slot: usize, prefix: &[Box<str>]| {
        chains
            .iter()
            .filter(|(s, c)| *s == slot && c.len() >= prefix.len() && c.starts_with(prefix))
            .count()
    };
    let mut slots: Vec<(usize, &[Box<str>])> = Vec::new();
    let mut points_of: Vec<Vec<MemoPoint>> = Vec::with_capacity(chains.len());
    for (slot, c) in &chains {
        let mut points = Vec::new();
        for len in 1..=c.len() {
            let prefix = c.get(..len).unwrap_or_default();
            let count = users(*slot, prefix);
            // A prefix every user of which also passes the next one is never the best
            // starting point: skip it.
            let next = c.get(..len + 1).map_or(0, |p| users(*slot, p));
            if count < 2 || count == next {
                continue;
            }
            let id = match slots.iter().position(|(s, p)| s == slot && *p == prefix) {
                Some(id) => id,
                None => {
                    slots.push((*slot, prefix));
                    slots.len() - 1
                }
            };
            points.push(MemoPoint {
                quals: len,
                slot: id,
            });
        }
        points_of.push(points);
    }
    let count = slots.len();
    let mut it = points_of.into_iter();
    visit_attrs(root, &mut |a| a.memo = it.next().unwrap_or_default());
    count
}

/// An attribute's variable slot and leading plain field names (none for other roots).
fn chain(a: &Attr) -> (usize, Vec<Box<str>>) {
    let AttrRoot::Global(slot) = a.root else {
        return (usize::MAX, Vec::new());
    };
    let names = a
        .quals
        .iter()
        .take(a.plain_field_prefix())
        .filter_map(|q| match &q.kind {
            QualKind::Field(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    (slot, names)
}

/// The variable paths a program reads: for every attribute rooted in a variable, the
/// variable's slot and the leading field names it selects (optionally or not). Everything the
/// program observes of a variable lies within the subtrees these paths reach.
pub(crate) fn read_paths(root: &mut Node) -> Vec<(usize, Vec<Box<str>>)> {
    let mut out: Vec<(usize, Vec<Box<str>>)> = Vec::new();
    visit_attrs(root, &mut |a| {
        let AttrRoot::Global(slot) = a.root else {
            return;
        };
        let fields: Vec<Box<str>> = a
            .quals
            .iter()
            .map_while(|q| match &q.kind {
                QualKind::Field(f) => Some(f.clone()),
                _ => None,
            })
            .collect();
        if !out.iter().any(|(s, f)| *s == slot && *f == fields) {
            out.push((slot, fields));
        }
    });
    out
}

/// Calls `f` on every attribute of the tree, outermost first.
fn visit_attrs(n: &mut Node, f: &mut impl FnMut(&mut Attr)) {
    match n {
        Node::Const(_) | Node::Error(_) => {}
        Node::Attr(a) => {
            f(a);
            match &mut a.root {
                AttrRoot::Expr(e) | AttrRoot::Cond(e) => visit_attrs(e, f),
                AttrRoot::Global(_) | AttrRoot::Local(_) => {}
            }
            for q in &mut a.quals {
                if let QualKind::Dyn(e) = &mut q.kind {
                    visit_attrs(e, f);
                }
            }
        }
        Node::Call(c) => c.args.iter_mut().for_each(|e| visit_attrs(e, f)),
        Node::And(l, r) | Node::Or(l, r) | Node::OptOr(l, r) | Node::OptOrValue(l, r) => {
            visit_attrs(l, f);
            visit_attrs(r, f);
        }
        Node::Cond(c, t, e) => {
            visit_attrs(c, f);
            visit_attrs(t, f);
            visit_attrs(e, f);
        }
        Node::List(elems, _) => elems.iter_mut().for_each(|e| visit_attrs(e, f)),
        Node::Map(entries) => {
            for (k, v, _) in entries {
                visit_attrs(k, f);
                visit_attrs(v, f);
            }
        }
        Node::Fold(fold) => {
            visit_attrs(&mut fold.range, f);
            visit_attrs(&mut fold.init, f);
            visit_attrs(&mut fold.cond, f);
            visit_attrs(&mut fold.step, f);
            visit_attrs(&mut fold.result, f);
        }
        Node::InConstSet(e, _) => visit_attrs(e, f),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use crate::Environment;

    fn memos(expr: &str) -> usize {
        let env = Environment::latest();
        let p = env.compile_condition(expr).unwrap();
        p.memo_slots()
    }

    #[test]
    fn shared_prefixes_get_slots() {
        // object.metadata (3 users) and object.metadata.labels (2 users).
        assert_eq!(
            memos("has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'"),
            2
        );
        // Nothing shared.
        assert_eq!(memos("request.namespace != 'kube-system'"), 0);
        // Same users for both prefixes: only the longer one.
        assert_eq!(
            memos("object.spec.replicas > 1 && object.spec.replicas < 5"),
            1
        );
        // Optional qualifiers end the plain chain.
        assert_eq!(
            memos("object.?metadata.?labels['a'].orValue('') == object.?metadata.?labels['b'].orValue('')"),
            0
        );
        // Comprehension variables are not memoised; the global inside is.
        assert_eq!(
            memos("object == null || !has(object.data) || !object.data.exists(k, object.data[k].contains('x'))"),
            1
        );
    }
}
