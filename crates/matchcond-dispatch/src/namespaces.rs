//! Where namespace labels come from: the host answers lookups by namespace name.

use std::collections::{BTreeMap, HashMap};

/// Labels of a namespace.
pub type Labels = BTreeMap<String, String>;

/// Looks up namespaces for namespaceSelector matching (the apiserver's namespace lister
/// and live lookup).
pub trait NamespaceLister {
    /// `Ok(Some(labels))` for an existing namespace, `Ok(None)` when it does not exist,
    /// `Err(message)` when the lookup failed.
    fn namespace_labels(&self, name: &str) -> Result<Option<Labels>, String>;
}

impl NamespaceLister for BTreeMap<String, Labels> {
    fn namespace_labels(&self, name: &str) -> Result<Option<Labels>, String> {
        Ok(self.get(name).cloned())
    }
}

impl NamespaceLister for HashMap<String, Labels> {
    fn namespace_labels(&self, name: &str) -> Result<Option<Labels>, String> {
        Ok(self.get(name).cloned())
    }
}

/// No namespace exists.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoNamespaces;

impl NamespaceLister for NoNamespaces {
    fn namespace_labels(&self, _: &str) -> Result<Option<Labels>, String> {
        Ok(None)
    }
}

/// A lister answering with a closure.
///
/// ```
/// use matchcond::dispatch::{NamespaceFn, NamespaceLister, Labels};
///
/// let lister = NamespaceFn(|name: &str| -> Result<Option<Labels>, String> {
///     Ok((name == "prod").then(|| Labels::from([("env".to_owned(), "prod".to_owned())])))
/// });
/// assert_eq!(lister.namespace_labels("dev"), Ok(None));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NamespaceFn<F>(pub F);

impl<F> NamespaceLister for NamespaceFn<F>
where
    F: Fn(&str) -> Result<Option<Labels>, String>,
{
    fn namespace_labels(&self, name: &str) -> Result<Option<Labels>, String> {
        (self.0)(name)
    }
}

/// Every namespace has the same labels (the conformance cases' `namespaceLabels`).
#[derive(Clone, Debug, Default)]
pub struct AnyNamespace(pub Labels);

impl NamespaceLister for AnyNamespace {
    fn namespace_labels(&self, _: &str) -> Result<Option<Labels>, String> {
        Ok(Some(self.0.clone()))
    }
}
