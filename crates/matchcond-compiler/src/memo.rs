//! Shared attribute prefixes.
//!
//! Variables do not change during an evaluation, so when several attributes of one program
//! walk the same chain of plain field selections from the same variable
//! (`has(object.metadata.labels) && 'app' in object.metadata.labels &&
//! object.metadata.labels['app'] == 'web'`), the node a prefix reaches can be remembered the
//! first time and reused. The cost charged is unchanged: a reused prefix is charged as if
//! each of its qualifiers had been applied again, as cel-go does.

use matchcond_runtime::plan::{Attr, AttrRoot, MemoPoint, Node, QualKind};
use matchcond_runtime::Value;

/// Assigns memo slots to the shared prefixes of a program's attributes; returns the number
/// of slots the evaluation needs.
pub(crate) fn assign_memos(root: &mut Node) -> usize {
    // Each attribute's variable and leading plain field names, in visiting order, and
    // whether the last name extends the attribute (see `Attr::extended_memo`).
    let mut chains: Vec<(usize, Vec<Box<str>>, bool)> = Vec::new();
    visit_attrs_with_keys(root, &mut |a, key| chains.push(chain(a, key)));
    let walkers = chains.iter().filter(|(_, c, _)| !c.is_empty()).count();
    if walkers < 2 {
        return 0;
    }
    // How many attributes pass through a prefix (the variable and `len` leading fields).
    let users = |slot: usize, prefix: &[Box<str>]| {
        chains
            .iter()
            .filter(|(s, c, _)| *s == slot && c.len() >= prefix.len() && c.starts_with(prefix))
            .count()
    };
    let mut slots: Vec<(usize, &[Box<str>])> = Vec::new();
    let mut points_of: Vec<(Vec<MemoPoint>, Option<usize>)> = Vec::with_capacity(chains.len());
    for (slot, c, extended) in &chains {
        let mut points = Vec::new();
        let mut extended_slot = None;
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
            if *extended && len == c.len() {
                extended_slot = Some(id);
            } else {
                points.push(MemoPoint {
                    quals: len,
                    slot: id,
                });
            }
        }
        points_of.push((points, extended_slot));
    }
    let count = slots.len();
    let mut it = points_of.into_iter();
    visit_attrs(root, &mut |a| {
        (a.memo, a.extended_memo) = it.next().unwrap_or_default();
    });
    count
}

/// An attribute's variable slot and leading plain field names (none for other roots),
/// extended by the presence-tested field of `has()` or by `key`, the constant key of a
/// `'key' in` test of which the attribute is the map, when the attribute is a plain chain.
fn chain(a: &Attr, key: Option<&str>) -> (usize, Vec<Box<str>>, bool) {
    let AttrRoot::Global(slot) = a.root else {
        return (usize::MAX, Vec::new(), false);
    };
    let plain = a.plain_field_prefix();
    let mut names: Vec<Box<str>> = a
        .quals
        .iter()
        .take(plain)
        .filter_map(|q| match &q.kind {
            QualKind::Field(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    let extension = match (a.test_only, a.quals.last()) {
        (true, Some(q)) if plain + 1 == a.quals.len() && !q.optional => match &q.kind {
            QualKind::Field(f) => Some(f.clone()),
            _ => None,
        },
        (false, _) if plain == a.quals.len() => key.map(Box::from),
        _ => None,
    };
    let extended = extension.is_some();
    names.extend(extension);
    (slot, names, extended)
}

/// [`visit_attrs`], also passing the constant string key of a `'key' in` test to the
/// attribute that is its map operand.
fn visit_attrs_with_keys(n: &mut Node, f: &mut impl FnMut(&mut Attr, Option<&str>)) {
    if let Node::Call(c) = n {
        if c.function.as_ref() == "@in" {
            if let [Node::Const(Value::String(k)), Node::Attr(a)] = c.args.as_mut_slice() {
                let key = k.as_str().to_owned();
                f(a, Some(&key));
                visit_attr_children(a, &mut |a| f(a, None));
                return;
            }
        }
    }
    match n {
        Node::Attr(a) => {
            f(a, None);
            visit_attr_children(a, &mut |a| f(a, None));
        }
        _ => for_each_child(n, &mut |c| visit_attrs_with_keys(c, f)),
    }
}

/// A path a program reads of one of its variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadPath {
    /// The variable's slot.
    pub slot: usize,
    /// The leading field names selected from it (optionally or not).
    pub fields: Vec<Box<str>>,
    /// Only the presence of the last field is read (the field `has()` tests, the constant
    /// key of a `'key' in` test of a plain chain); otherwise the subtree the fields reach is
    /// read whole.
    pub presence_only: bool,
}

/// The variable paths a program reads, one for every attribute rooted in a variable.
/// Everything the program observes of a variable lies within these paths: a value pruned to
/// them (a member only tested for presence kept without its value) evaluates as the whole.
pub(crate) fn read_paths(root: &mut Node) -> Vec<ReadPath> {
    let mut out: Vec<ReadPath> = Vec::new();
    visit_attrs_with_keys(root, &mut |a, key| {
        let AttrRoot::Global(slot) = a.root else {
            return;
        };
        let (_, tested, presence_only) = chain(a, key);
        let fields = if presence_only {
            tested
        } else {
            leading_fields(a)
        };
        let path = ReadPath {
            slot,
            fields,
            presence_only,
        };
        if !out.contains(&path) {
            out.push(path);
        }
    });
    out
}

/// The leading field names an attribute selects, optionally or not.
fn leading_fields(a: &Attr) -> Vec<Box<str>> {
    a.quals
        .iter()
        .map_while(|q| match &q.kind {
            QualKind::Field(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

/// Calls `f` on every attribute of the tree, outermost first.
fn visit_attrs(n: &mut Node, f: &mut impl FnMut(&mut Attr)) {
    match n {
        Node::Attr(a) => {
            f(a);
            visit_attr_children(a, f);
        }
        _ => for_each_child(n, &mut |c| visit_attrs(c, f)),
    }
}

/// Visits the attributes inside an attribute (its root expression and dynamic qualifiers).
fn visit_attr_children(a: &mut Attr, f: &mut impl FnMut(&mut Attr)) {
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

/// Calls `f` on each direct child node of a node that is not an attribute.
fn for_each_child(n: &mut Node, f: &mut impl FnMut(&mut Node)) {
    match n {
        Node::Const(_) | Node::Error(_) | Node::Attr(_) => {}
        Node::Call(c) => c.args.iter_mut().for_each(f),
        Node::And(l, r) | Node::Or(l, r) | Node::OptOr(l, r) | Node::OptOrValue(l, r) => {
            f(l);
            f(r);
        }
        Node::Cond(c, t, e) => {
            f(c);
            f(t);
            f(e);
        }
        Node::List(elems, _) => elems.iter_mut().for_each(f),
        Node::Map(entries) => {
            for (k, v, _) in entries {
                f(k);
                f(v);
            }
        }
        Node::Fold(fold) => {
            f(&mut fold.range);
            f(&mut fold.init);
            f(&mut fold.cond);
            f(&mut fold.step);
            f(&mut fold.result);
        }
        Node::InConstSet(e, _) => f(e),
        Node::AuthzCheck(c) => f(&mut c.calls),
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
        // object.metadata.labels (has() finds it, `in` and the index pass through it) and
        // object.metadata.labels.app (the `in` key, found by the test, and the index).
        assert_eq!(
            memos("has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'web'"),
            2
        );
        // Nothing shared.
        assert_eq!(memos("request.namespace != 'kube-system'"), 0);
        assert_eq!(
            memos("'app' in object.metadata.labels || has(object.spec)"),
            0
        );
        // The key a `'key' in` test finds is shared with the index.
        assert_eq!(
            memos("'app' in object.metadata.labels && object.metadata.labels.app == 'x'"),
            1
        );
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
