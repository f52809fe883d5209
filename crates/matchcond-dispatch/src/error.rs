//! Errors of loading configurations and of reading requests.

/// Why configuration documents could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The text is neither JSON nor YAML.
    #[error("syntax error: {0}")]
    Syntax(String),
    /// A document is not a webhook configuration (nor a list of them).
    #[error("unsupported kind {0:?}")]
    UnsupportedKind(String),
    /// A configuration's `apiVersion` is not `admissionregistration.k8s.io/v1`.
    #[error("unsupported apiVersion {0:?}")]
    UnsupportedApiVersion(String),
    /// The object does not have the shape of its type (a field of the wrong type).
    #[error("{0}")]
    Decode(String),
    /// The text holds no webhook configuration.
    #[error("no ValidatingWebhookConfiguration or MutatingWebhookConfiguration found")]
    NoConfiguration,
    /// An error in one document of a multi-document text.
    #[error("document {index}: {source}")]
    Document {
        /// The document's position (0-based, counting empty documents).
        index: usize,
        /// The error.
        source: Box<LoadError>,
    },
}

/// Why a request could not be read as admission attributes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The bytes are not a JSON AdmissionReview with a `request`.
    #[error("invalid AdmissionReview: {message}")]
    Review {
        /// What is wrong (serde_json's error, or `no request`).
        message: String,
    },
    /// The request is not a JSON object.
    #[error("the admission request must be a JSON object")]
    NotAnObject,
    /// A field has the wrong JSON type.
    #[error("the admission request's field {field} must be {expected}")]
    WrongType {
        /// The field path (`kind.group`, `dryRun`, ...).
        field: String,
        /// What it must be.
        expected: &'static str,
    },
}
