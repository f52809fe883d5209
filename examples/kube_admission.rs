//! A kube-rs admission webhook's answer, decided by matchcond: reads an
//! `AdmissionReview<DynamicObject>` with kube's types, decides every webhook of a
//! configuration by name through the dispatcher, and answers each with kube's
//! `AdmissionResponse` serialised as an `AdmissionReview` (one JSON line per webhook, in
//! dispatch order).
//!
//! A webhook the apiserver would not call (skipped) or would call is allowed here; a
//! request the apiserver would reject while deciding (a condition that errs under
//! `failurePolicy: Fail`, an unreadable selector) is denied with the apiserver's status.
//! The audit annotation `matchcond.example.com/decision` names the webhook and says which.
//!
//! ```sh
//! cargo run --example kube_admission --features kube -- \
//!   examples/webhooks.yaml examples/reviews/pod-create.json
//! ```

use std::error::Error;
use std::process::ExitCode;

use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use kube_core::DynamicObject;
use matchcond::dispatch::{load_documents, Dispatcher, Labels, NamespaceFn};
use matchcond::kube::KubeRequest;
use matchcond::{Decision, KubeVersion};

/// The answers, one `AdmissionReview` JSON line per webhook of `configuration` (YAML or
/// JSON), for the AdmissionReview `review`.
pub fn answer(
    configuration: &str,
    review: &[u8],
    version: KubeVersion,
) -> Result<String, Box<dyn Error + Send + Sync>> {
    let configurations = load_documents(configuration)?;
    let dispatcher = Dispatcher::new(&configurations, version);
    let review: AdmissionReview<DynamicObject> = serde_json::from_slice(review)?;
    let request: AdmissionRequest<DynamicObject> = review.try_into()?;
    // Built before the request is moved into matchcond's form.
    let allowed = AdmissionResponse::from(&request);
    let request = KubeRequest::from_dynamic(request)?;
    // A namespace's labels, as the apiserver's lister gives them: here only the name label
    // every namespace carries.
    let namespaces = NamespaceFn(|name: &str| -> Result<Option<Labels>, String> {
        let label = ("kubernetes.io/metadata.name".to_owned(), name.to_owned());
        Ok(Some(Labels::from([label])))
    });
    let mut out = String::new();
    for hook in dispatcher.hooks() {
        // By name: the uid `<configuration>/<webhook>/<n>` is a name that stays unique
        // when several configurations have a webhook of the same name.
        let Some(outcome) = dispatcher.decide_webhook(&hook.uid, request.json(), &namespaces)?
        else {
            continue;
        };
        let mut response = allowed.clone();
        let word = match (&outcome.decision, outcome.rejection()) {
            (Decision::Call, _) => format!("{}: call", hook.name),
            (Decision::Skip(skip), _) => format!("{}: skip: {skip}", hook.name),
            (Decision::Reject { message }, rejection) => {
                response = response.deny(message);
                if let Some(r) = rejection {
                    response.result.code = r.code;
                    response.result.reason = r.reason.to_owned();
                }
                format!("{}: reject", hook.name)
            }
        };
        response
            .audit_annotations
            .insert("matchcond.example.com/decision".to_owned(), word);
        out.push_str(&serde_json::to_string(&response.into_review())?);
        out.push('\n');
    }
    Ok(out)
}

#[allow(dead_code)] // a test includes this file as a module and calls `answer`
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [configuration, review] = args.as_slice() else {
        eprintln!("usage: kube_admission CONFIGURATION.yaml ADMISSION_REVIEW.json");
        return ExitCode::from(2);
    };
    let read = |path: &str| std::fs::read(path).map_err(|e| format!("{path}: {e}"));
    let result = read(configuration)
        .and_then(|c| String::from_utf8(c).map_err(|e| format!("{configuration}: {e}")))
        .and_then(|c| Ok((c, read(review)?)))
        .and_then(|(c, r)| answer(&c, &r, KubeVersion::LATEST).map_err(|e| e.to_string()));
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kube_admission: {e}");
            ExitCode::from(2)
        }
    }
}
