//! Declarations of the Kubernetes format library (`kubernetes.format`, kubernetes/apiserver
//! `pkg/cel/library/format.go`), type `kubernetes.NamedFormat`.
use super::{func, ov, Function};
use crate::types::Type;

/// The CEL type name of named formats.
pub(crate) const NAMED_FORMAT: &str = "kubernetes.NamedFormat";

/// The zero-argument constant functions, `format.<name>()`, one per named format; the
/// function name is also the overload id.
pub(crate) const CONSTANTS: [&str; 13] = [
    "format.dns1123Label",
    "format.dns1123Subdomain",
    "format.dns1035Label",
    "format.qualifiedName",
    "format.dns1123LabelPrefix",
    "format.dns1123SubdomainPrefix",
    "format.dns1035LabelPrefix",
    "format.labelValue",
    "format.uri",
    "format.uuid",
    "format.byte",
    "format.date",
    "format.datetime",
];

fn f() -> Type {
    Type::named(NAMED_FORMAT)
}

/// The functions.
pub(crate) fn functions() -> Vec<Function> {
    let mut fns = vec![
        func(
            "validate",
            vec![ov(
                "format-validate",
                true,
                vec![f(), Type::String],
                Type::optional(Type::list(Type::String)),
            )],
        ),
        func(
            "format.named",
            vec![ov(
                "format-named",
                false,
                vec![Type::String],
                Type::optional(f()),
            )],
        ),
    ];
    fns.extend(
        CONSTANTS
            .iter()
            .map(|name| func(name, vec![ov(name, false, Vec::new(), f())])),
    );
    fns
}

/// The type names.
pub(crate) fn types() -> Vec<(&'static str, Type)> {
    vec![(NAMED_FORMAT, f())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations() {
        let fns = functions();
        assert_eq!(fns.len(), 15);
        let dns = fns.iter().find(|f| f.name == "format.dns1123Label");
        assert_eq!(
            dns.map(|f| f.overloads.clone()),
            Some(vec![ov("format.dns1123Label", false, Vec::new(), f())])
        );
        assert_eq!(types(), vec![("kubernetes.NamedFormat", f())]);
    }
}
