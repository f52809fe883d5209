//! The AdmissionReview of an audit event: the request the apiserver built for the
//! request an `audit.k8s.io/v1` Event records ([`crate::audit::admission_request`]), as a
//! review, with a warning for each member the event cannot carry.

use serde_json::{json, Value as Json};

use crate::audit::{admission_request, Event, Level, Stage};
use crate::request::catalog::Catalog;
use crate::request::manifest::{ReviewWarning, REVIEW_API_VERSION};

/// Why an audit event gives no review.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditReviewError {
    /// Not an audit event.
    #[error("{0}")]
    Event(#[from] crate::audit::EventError),
    /// The request does not pass through admission, or the event is invalid.
    #[error("{0}")]
    NotAdmitted(#[from] crate::audit::NotAdmitted),
}

/// A review built from an audit event.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AuditReview {
    /// The AdmissionReview (`admission.k8s.io/v1`).
    pub review: Json,
    /// The members the event could not carry (read as null or absent when decided).
    pub warnings: Vec<ReviewWarning>,
}

/// Builds the review of one audit event (its JSON text: one line of a log, or a whole
/// file holding one event).
pub fn review_from_audit_event(
    text: &[u8],
    catalog: &Catalog,
) -> Result<AuditReview, AuditReviewError> {
    let event = Event::from_line(text)?;
    let built = admission_request(&event, catalog)?;
    // What does not record the body: the level, or the first stage at any level.
    let unrecorded = if event.level >= Level::Request {
        (event.stage == Stage::RequestReceived).then_some("stage RequestReceived".to_owned())
    } else {
        Some(format!("level {}", event.level.as_str()))
    };
    let why = |member: &str| -> String {
        match (member, &unrecorded) {
            ("oldObject", _) => {
                "not in the audit event (no level records the stored object): read as null"
                    .to_owned()
            }
            ("object", Some(what)) => format!(
                "not in the audit event ({what} records no request body): read as null"
            ),
            ("object", None) => {
                "not in the audit event (the body recorded is not the object: a patch; or connect options the URL does not give): read as null".to_owned()
            }
            ("options", Some(what)) => {
                format!("not in the audit event ({what} records no request body)")
            }
            ("options", None) => "not in the audit event (a pod's delete sets gracePeriodSeconds from the stored pod before admission, unless 0 was asked)".to_owned(),
            ("name", _) => "not in the audit event (stage RequestReceived is written before the create reads the name from the body): read as absent".to_owned(),
            ("dryRun", what) => format!(
                "not in the audit event (a DELETE sets it in its options, sent in the body, which {} does not record): read as false",
                what.as_deref().unwrap_or("the event")
            ),
            _ => "not in the audit event (the kind is in no catalog and no recorded object names it)"
                .to_owned(),
        }
    };
    let warnings = built
        .missing
        .names()
        .into_iter()
        .map(|m| ReviewWarning {
            path: format!("request.{m}"),
            message: why(m),
        })
        .collect();
    Ok(AuditReview {
        review: json!({
            "apiVersion": REVIEW_API_VERSION,
            "kind": "AdmissionReview",
            "request": built.request,
        }),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use matchcond_compiler::KubeVersion;

    #[test]
    fn a_pod_create_at_request_level() {
        let line = br#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"a-1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/pods","verb":"create","user":{"username":"alice","groups":["dev","system:authenticated"]},"objectRef":{"resource":"pods","namespace":"shop","name":"web-0","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"shop"}},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z"}"#;
        let r = review_from_audit_event(line, &Catalog::builtin_for(KubeVersion::V1_34)).unwrap();
        let req = &r.review["request"];
        assert_eq!(req["operation"], "CREATE");
        assert_eq!(req["kind"]["kind"], "Pod");
        assert_eq!(req["userInfo"]["username"], "alice");
        assert_eq!(req["object"]["metadata"]["name"], "web-0");
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let update = String::from_utf8_lossy(line)
            .replace("\"verb\":\"create\"", "\"verb\":\"update\"")
            .replace("\"code\":201", "\"code\":200");
        let r =
            review_from_audit_event(update.as_bytes(), &Catalog::builtin_for(KubeVersion::V1_34))
                .unwrap();
        assert_eq!(r.review["request"]["operation"], "UPDATE");
        assert_eq!(
            r.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec!["request.oldObject: not in the audit event (no level records the stored object): read as null"]
        );
        assert!(review_from_audit_event(b"{}", &Catalog::new()).is_err());
        // A delete at level Metadata: no body, so neither its options nor its dry run.
        let delete = String::from_utf8_lossy(line)
            .replace("\"verb\":\"create\"", "\"verb\":\"delete\"")
            .replace("\"level\":\"Request\"", "\"level\":\"Metadata\"")
            .replace("\"code\":201", "\"code\":200");
        let r =
            review_from_audit_event(delete.as_bytes(), &Catalog::builtin_for(KubeVersion::V1_34))
                .unwrap();
        assert_eq!(r.review["request"]["dryRun"], false);
        assert_eq!(
            r.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec![
                "request.oldObject: not in the audit event (no level records the stored object): read as null",
                "request.options: not in the audit event (level Metadata records no request body)",
                "request.dryRun: not in the audit event (a DELETE sets it in its options, sent in the body, which level Metadata does not record): read as false",
            ]
        );
    }
}
