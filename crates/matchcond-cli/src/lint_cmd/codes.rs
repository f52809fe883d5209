//! Every finding code the command reports (the linter's and its own), with the description
//! and help the SARIF rules carry.

use matchcond::lint::Code;

/// A suppression (annotation, comment or configuration entry) that suppresses nothing.
pub const UNUSED_SUPPRESSION: &str = "unusedSuppression";
/// A suppression marker that cannot be read (no reason, an unknown code).
pub const INVALID_SUPPRESSION: &str = "invalidSuppression";

/// A file or folder that cannot be read.
pub const UNREADABLE: &str = "unreadable";

/// The command's own codes.
const OWN: [&str; 3] = [UNUSED_SUPPRESSION, INVALID_SUPPRESSION, UNREADABLE];

/// Every code name: the linter's, then the command's.
pub fn names() -> Vec<&'static str> {
    Code::all().map(Code::as_str).chain(OWN).collect()
}

/// True for a code the command reports.
pub fn is_known(name: &str) -> bool {
    names().contains(&name)
}

/// A code's one-line description and its help.
pub fn describe(code: &str) -> (&'static str, &'static str) {
    match code {
        "syntax" => ("The text is not YAML or JSON", "Fix the syntax error; an unrendered Helm template must be rendered first (helm template)."),
        "noConfiguration" => ("The input holds no webhook configuration", "Lint files that hold ValidatingWebhookConfiguration or MutatingWebhookConfiguration objects; documents of other kinds are skipped."),
        "notAnObject" => ("A document is not an object", "Each YAML document must be a Kubernetes object."),
        "skippedKind" => ("A document of another kind is skipped", "Nothing to do: only webhook configurations are linted."),
        "unsupportedApiVersion" => ("An apiVersion the apiserver does not serve", "Use admissionregistration.k8s.io/v1."),
        "missingApiVersion" => ("An object without apiVersion", "kubectl refuses objects without apiVersion: add admissionregistration.k8s.io/v1."),
        "unknownField" => ("An unknown field (strict field validation refuses it)", "Remove the field or fix its name."),
        "duplicateField" => ("A duplicate field (strict field validation refuses it)", "Keep one of the fields."),
        "invalidType" => ("A field of the wrong type", "Give the field the type the API defines."),
        "invalidValue" => ("A value the API does not accept", "Use one of the values the API defines."),
        "yaml11Boolean" => ("A plain yes, no, on, off, y or n where a string is expected", "Quote the value: kubectl's YAML decoder (YAML 1.1) reads it as a boolean, which the apiserver refuses for a string."),
        "validation" => ("The apiserver's validation refuses the configuration", "Fix the field the message names; the apiserver refuses the configuration as it is."),
        "objectOnDelete" => ("object read where DELETE makes it null", "Guard the read with request.operation != 'DELETE' or object != null, or read it optionally (object.?field)."),
        "oldObjectOnCreate" => ("oldObject read where CREATE or CONNECT make it null", "Guard the read with request.operation == 'UPDATE' or oldObject != null, or read it optionally."),
        "connectOptions" => ("object read on CONNECT, where it is the operation's options", "Exclude CONNECT from the rules or the condition, or test has(object.field) first."),
        "namespaceObjectNull" => ("namespaceObject is always null for webhooks", "Select namespaces with the webhook's namespaceSelector, or test request.namespace."),
        "paramsUndeclared" => ("params is not declared for webhooks", "Write the values into the expression, or use an admission policy with paramKind."),
        "omittedRequestField" => ("A request member the apiserver omits, read without a test", "Test has(request.member) first, or read it optionally (request.?member.orValue(''))."),
        "mapKeyWithoutTest" => ("A map key read without a presence test", "Test 'key' in map first, or read it optionally (map[?'key'])."),
        "absentMap" => ("A map or list that objects may lack, read without a test", "Test has(map) first, or read it optionally (x.?map.orValue({}))."),
        "listIndex" => ("A constant index into a list that may be shorter or absent", "Test size(list) > index first, or read it optionally (list[?index].orValue(...))."),
        "noRules" => ("A webhook without rules is never called", "Add rules that select the requests the webhook is for."),
        "costLimit" => ("A condition over the per-expression cost limit", "Split the condition, or bound what it iterates over."),
        "costBudget" => ("Conditions together over the webhook's cost budget", "Spread the conditions over several webhooks."),
        "neverTrue" => ("A condition false (or failing) for every request the rules let through", "Fix the test or the rules: the webhook is never called."),
        "alwaysTrue" => ("A condition true for every request the rules let through", "Remove the condition, or fix the test."),
        "excludesAuthenticated" => ("A condition false for every authenticated user", "To exclude a group of users, test that group."),
        "minimumVersion" => ("An expression that needs a newer Kubernetes", "Lint for a newer --k8s-version, or avoid what the older versions lack."),
        "compatibility" => ("The Kubernetes versions that accept the configuration", "Information: the modelled versions that refuse it are listed."),
        UNUSED_SUPPRESSION => ("A suppression that suppresses nothing", "Remove the suppression: the finding it was for is gone (or it names the wrong code or webhook)."),
        INVALID_SUPPRESSION => ("A suppression marker that cannot be read", "Write CODE[,CODE][@WEBHOOK[,WEBHOOK]]: REASON, with known codes and a reason."),
        UNREADABLE => ("A file or folder that cannot be read", "Check the path and its permissions."),
        _ => ("A finding of matchcond lint", "See the finding's message."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_described() {
        for name in names() {
            assert_ne!(describe(name).0, "A finding of matchcond lint", "{name}");
        }
    }
}
