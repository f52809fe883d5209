//! The reference parser test table, `tests/data/celgo-parser.yaml` (read by the parser's
//! integration tests and by its unit tests).

/// One case of the table.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParserCase {
    /// The expression.
    pub input: String,
    /// The Go parser options the case sets (empty: the table's defaults).
    #[serde(default)]
    pub options: String,
    /// The parsed tree in the reference's adorned debug format (empty: the case fails).
    #[serde(default)]
    pub tree: String,
    /// The rendered errors (empty: the case parses).
    #[serde(default)]
    pub error: String,
}

/// Every case of the table, in order.
pub fn celgo_parser_cases() -> Vec<ParserCase> {
    let text = include_str!("../data/celgo-parser.yaml");
    match serde_yaml_ng::from_str(text) {
        Ok(cases) => cases,
        Err(e) => panic!("tests/data/celgo-parser.yaml: {e}"),
    }
}
