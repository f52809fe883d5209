//! Findings: what the linter reports, with its severity, code, message, field path, position
//! in the file and span in the expression.

use std::fmt;

use matchcond_compiler::KubeVersion;
use matchcond_dispatch::load::DiagnosticKind;
pub use matchcond_dispatch::load::Severity;
/// An admission operation (the dispatcher's).
pub use matchcond_dispatch::types::Operation;
pub use matchcond_dispatch::yaml::Position;
use matchcond_dispatch::FieldError;

/// What a finding is about. The codes (`Code::as_str`) are stable: they are the keys of the
/// JSON output and what `--allow`-style filters match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Code {
    /// A problem found reading the text (a syntax error, no configuration, an unknown,
    /// duplicate or mistyped field, another kind skipped …): the loader's own kind, whose
    /// [`code`](DiagnosticKind::code) is the finding's code.
    Load(DiagnosticKind),
    // The apiserver's validation.
    /// An error of the apiserver's validation (its exact message).
    Validation,
    // Traps: accepted by the apiserver, failing or misleading at run time.
    /// `object` read where DELETE makes it null.
    ObjectOnDelete,
    /// `oldObject` read where CREATE or CONNECT make it null.
    OldObjectOnCreate,
    /// A field of `object` read on CONNECT, where `object` is the operation's options.
    ConnectOptions,
    /// `namespaceObject` read: it is always null for webhooks.
    NamespaceObjectNull,
    /// `params` used: it is not declared for webhooks.
    ParamsUndeclared,
    /// A request member the apiserver omits when empty, read without a test.
    OmittedRequestField,
    /// A map key read without a presence test.
    MapKeyWithoutTest,
    /// A map or list that may be absent, read with `in`, an index, a macro, a method or
    /// `size()`.
    AbsentMap,
    /// A constant index into a list that may be shorter, or absent.
    ListIndex,
    /// A condition whose cost can exceed the per-expression limit.
    CostLimit,
    /// Conditions whose costs together can exceed the webhook's budget.
    CostBudget,
    /// A webhook without rules: it is never called, whatever its conditions say.
    NoRules,
    /// A condition that is false for every request the rules let through.
    NeverTrue,
    /// A condition that is true for every request the rules let through.
    AlwaysTrue,
    /// A condition that is false for every authenticated user.
    ExcludesAuthenticated,
    /// An expression that needs a newer Kubernetes version than the one linted for.
    MinimumVersion,
    /// Which of the modelled Kubernetes versions accept the configuration.
    Compatibility,
}

impl Code {
    /// The code's stable name (`objectOnDelete`, `unknownField` …).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Load(kind) => kind.code(),
            Code::Validation => "validation",
            Code::ObjectOnDelete => "objectOnDelete",
            Code::OldObjectOnCreate => "oldObjectOnCreate",
            Code::ConnectOptions => "connectOptions",
            Code::NamespaceObjectNull => "namespaceObjectNull",
            Code::ParamsUndeclared => "paramsUndeclared",
            Code::OmittedRequestField => "omittedRequestField",
            Code::MapKeyWithoutTest => "mapKeyWithoutTest",
            Code::AbsentMap => "absentMap",
            Code::ListIndex => "listIndex",
            Code::NoRules => "noRules",
            Code::CostLimit => "costLimit",
            Code::CostBudget => "costBudget",
            Code::NeverTrue => "neverTrue",
            Code::AlwaysTrue => "alwaysTrue",
            Code::ExcludesAuthenticated => "excludesAuthenticated",
            Code::MinimumVersion => "minimumVersion",
            Code::Compatibility => "compatibility",
        }
    }

    /// Every code, in a stable order: the loader's kinds, then validation, the traps and
    /// the version findings.
    pub fn all() -> impl Iterator<Item = Code> {
        DiagnosticKind::ALL.into_iter().map(Code::Load).chain([
            Code::Validation,
            Code::ObjectOnDelete,
            Code::OldObjectOnCreate,
            Code::ConnectOptions,
            Code::NamespaceObjectNull,
            Code::ParamsUndeclared,
            Code::OmittedRequestField,
            Code::MapKeyWithoutTest,
            Code::AbsentMap,
            Code::ListIndex,
            Code::CostLimit,
            Code::CostBudget,
            Code::NoRules,
            Code::NeverTrue,
            Code::AlwaysTrue,
            Code::ExcludesAuthenticated,
            Code::MinimumVersion,
            Code::Compatibility,
        ])
    }

    /// The code of a name.
    pub fn named(name: &str) -> Option<Code> {
        Code::all().find(|c| c.as_str() == name)
    }

    /// True for codes of the run-time traps (warnings about conditions).
    pub fn is_trap(self) -> bool {
        self >= Code::ObjectOnDelete && self <= Code::ExcludesAuthenticated
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a finding lies in a matchCondition's expression.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExprSpan {
    /// Byte offset of the start, in the expression as written in the configuration.
    pub start: usize,
    /// Byte offset of the end (exclusive).
    pub end: usize,
    /// Line of the start in the expression (1-based).
    pub line: u32,
    /// Column of the start in the expression (1-based, in characters).
    pub column: u32,
    /// The expression's line with a caret under the start, as cel-go shows compile errors:
    /// `" | <line>\n | ....^"`.
    pub snippet: String,
}

/// One finding.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Finding {
    pub(crate) severity: Severity,
    pub(crate) code: Code,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
    pub(crate) path: String,
    pub(crate) position: Option<Position>,
    pub(crate) span: Option<ExprSpan>,
    pub(crate) operations: Vec<Operation>,
    pub(crate) versions: Vec<KubeVersion>,
    pub(crate) field_error: Option<FieldError>,
}

impl Finding {
    pub(crate) fn new(severity: Severity, code: Code, message: impl Into<String>) -> Finding {
        Finding {
            severity,
            code,
            message: message.into(),
            help: None,
            path: String::new(),
            position: None,
            span: None,
            operations: Vec::new(),
            versions: Vec::new(),
            field_error: None,
        }
    }

    pub(crate) fn at_path(mut self, path: impl Into<String>) -> Finding {
        self.path = path.into();
        self
    }

    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Error, warning or note.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// What it is about.
    pub fn code(&self) -> Code {
        self.code
    }

    /// What is wrong. For [`Code::Validation`] it is the apiserver's message without the
    /// field path (see [`Finding::field_error`] for the whole error).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// How to fix it, when there is a known fix.
    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// The field path in the configuration (`webhooks[0].matchConditions[1].expression`);
    /// empty for findings about a whole document or text.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The position in the linted text (`None` when linting a configuration without text).
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// The span in the expression, for findings about a matchCondition's expression.
    pub fn span(&self) -> Option<&ExprSpan> {
        self.span.as_ref()
    }

    /// The operations concerned (for traps that depend on the operation).
    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    /// The Kubernetes versions concerned (for version findings: the versions that refuse
    /// or lack what the finding is about).
    pub fn versions(&self) -> &[KubeVersion] {
        &self.versions
    }

    /// The apiserver's validation error, for [`Code::Validation`].
    pub fn field_error(&self) -> Option<&FieldError> {
        self.field_error.as_ref()
    }
}

/// `severity[code]: path: message` (the position is the reporter's to print).
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: ", self.severity, self.code)?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}
