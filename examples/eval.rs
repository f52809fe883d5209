//! Compiles and evaluates one expression in the matchConditions environment.
//!
//! `cargo run --example eval -- EXPRESSION [ADMISSION_REVIEW.json]`

use matchcond::{Activation, CompileOptions, Environment};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(expr) = args.next() else {
        eprintln!("usage: eval EXPRESSION [ADMISSION_REVIEW.json]");
        std::process::exit(2);
    };
    let review: Option<serde_json::Value> = match args.next() {
        Some(path) => match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        },
        None => None,
    };
    let env = Environment::latest();
    let program = match env.compile(&expr, &CompileOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let activation = match review.as_ref().and_then(|r| r.get("request")) {
        Some(req) => Activation::from_request(req),
        None => Activation::empty(),
    };
    let out = program.evaluate(&activation, Some(matchcond::PER_CALL_COST_LIMIT));
    match out.result {
        Ok(v) => println!("{v} ({}), cost {}", v.type_name(), out.cost),
        Err(e) => {
            println!("error: {e} (cost {})", out.cost);
            std::process::exit(1);
        }
    }
}
