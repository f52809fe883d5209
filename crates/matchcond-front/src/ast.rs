//! The abstract syntax tree produced by the parser.
//!
//! The shape follows the CEL specification's `Expr` message: literals, identifiers, field
//! selections, calls (operators are calls to functions such as `_+_`), list and map
//! literals, message construction and comprehensions (the expansion of macros). Every node
//! carries a unique [`ExprId`] and the byte offset of the token that locates it in the
//! source (for a call, the operator or the opening parenthesis, as cel-go reports it).

/// Identifier of an expression node, unique within one parsed expression.
pub type ExprId = u32;

/// One node of the expression tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Unique node id (ids start at 1).
    pub id: ExprId,
    /// Byte offset in the source of the token that locates this node.
    pub offset: u32,
    /// What the node is.
    pub kind: ExprKind,
}

/// The kinds of expression node.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A literal constant.
    Literal(Literal),
    /// A (possibly dotted, after resolution) identifier: `object`, `request`.
    Ident(String),
    /// Field selection `operand.field`; with `test_only` it is the expansion of
    /// `has(operand.field)`.
    Select {
        /// The expression whose field is selected.
        operand: Box<Expr>,
        /// The field name.
        field: String,
        /// True for the presence test produced by the `has()` macro.
        test_only: bool,
    },
    /// A function call. Operators are calls: `_+_`, `_&&_`, `!_`, `-_`, `_[_]`,
    /// `_?_:_`, `_?._` (optional select, second argument a string literal),
    /// `_[?_]` (optional index), `@in`, `_==_` …
    Call {
        /// Receiver of a member call (`target.function(args)`), `None` for global calls.
        target: Option<Box<Expr>>,
        /// The function name.
        function: String,
        /// The arguments, not including the target.
        args: Vec<Expr>,
    },
    /// A list literal `[a, ?b]`.
    List {
        /// The elements in order.
        elements: Vec<Expr>,
        /// Indices (into `elements`) of optional elements written `?e`.
        optional_indices: Vec<u32>,
    },
    /// A map literal `{k: v, ?k2: v2}`.
    Map {
        /// The entries in order.
        entries: Vec<MapEntry>,
    },
    /// A message construction `Name{field: value}`.
    Struct {
        /// The message type name as written (leading dot kept).
        type_name: String,
        /// The field initialisers.
        fields: Vec<FieldInit>,
    },
    /// A comprehension: the expansion of a macro such as `all`, `exists`, `map`.
    Comprehension(Box<Comprehension>),
}

/// One entry of a map literal.
#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    /// Entry id.
    pub id: ExprId,
    /// Byte offset of the entry (its colon).
    pub offset: u32,
    /// The key.
    pub key: Expr,
    /// The value.
    pub value: Expr,
    /// True for `?key: value`.
    pub optional: bool,
}

/// One field initialiser of a message construction.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldInit {
    /// Entry id.
    pub id: ExprId,
    /// Byte offset of the entry.
    pub offset: u32,
    /// The field name.
    pub field: String,
    /// The value.
    pub value: Expr,
    /// True for `?field: value`.
    pub optional: bool,
}

/// A comprehension, the common form of every iterating macro.
///
/// Evaluation: `accu = accu_init`; for each element of `iter_range` (for a map, each key;
/// with `iter_var2`, index/key and value), while `loop_condition` holds, `accu = loop_step`;
/// then the value is `result`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    /// The iteration variable (the element, or the index/key with two variables).
    pub iter_var: String,
    /// The second iteration variable (the value) of a two-variable comprehension.
    pub iter_var2: Option<String>,
    /// The range iterated over.
    pub iter_range: Expr,
    /// The accumulator variable name.
    pub accu_var: String,
    /// The accumulator's initial value.
    pub accu_init: Expr,
    /// Evaluated before each step; iteration stops when it is false.
    pub loop_condition: Expr,
    /// The next accumulator value.
    pub loop_step: Expr,
    /// The comprehension's value, computed from the accumulator.
    pub result: Expr,
}

/// A literal constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A signed 64-bit integer.
    Int(i64),
    /// An unsigned 64-bit integer (`1u`).
    Uint(u64),
    /// A 64-bit float.
    Double(f64),
    /// A string (escapes already decoded).
    String(String),
    /// A byte string (escapes already decoded).
    Bytes(Vec<u8>),
}

impl Expr {
    /// Creates a node.
    pub fn new(id: ExprId, offset: u32, kind: ExprKind) -> Self {
        Expr { id, offset, kind }
    }

    /// The literal string value if this node is a string literal.
    pub fn as_string_literal(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Literal(Literal::String(s)) => Some(s),
            _ => None,
        }
    }

    /// The name if this node is an identifier.
    pub fn as_ident(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// True when the node is a literal constant.
    pub fn is_literal(&self) -> bool {
        matches!(self.kind, ExprKind::Literal(_))
    }

    /// The depth of the tree (a leaf is 1), counted only up to just over `limit`: work on
    /// a deep tree stops there, so the count itself never recurses deeper than `limit`.
    pub fn depth_up_to(&self, limit: usize) -> usize {
        self.depth_from(0, limit)
    }

    fn depth_from(&self, depth: usize, limit: usize) -> usize {
        if depth > limit {
            return depth;
        }
        let d = depth + 1;
        let deepest = |es: &mut dyn Iterator<Item = &Expr>| {
            es.map(|c| c.depth_from(d, limit)).max().unwrap_or(d)
        };
        match &self.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => d,
            ExprKind::Select { operand, .. } => operand.depth_from(d, limit),
            ExprKind::Call { target, args, .. } => {
                deepest(&mut target.as_deref().into_iter().chain(args.iter()))
            }
            ExprKind::List { elements, .. } => deepest(&mut elements.iter()),
            ExprKind::Map { entries } => {
                deepest(&mut entries.iter().flat_map(|en| [&en.key, &en.value]))
            }
            ExprKind::Struct { fields, .. } => deepest(&mut fields.iter().map(|f| &f.value)),
            ExprKind::Comprehension(c) => deepest(
                &mut [
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_condition,
                    &c.loop_step,
                    &c.result,
                ]
                .into_iter(),
            ),
        }
    }
}

/// The name of the accumulator variable the macro expansions use.
pub const ACCUMULATOR_VAR: &str = "@result";
