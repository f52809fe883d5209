//! Prints how the parser reads expressions: the tree in the reference implementation's
//! adorned debug format, with node kinds and then with byte offsets, or the rendered errors.
//!
//! ```text
//! cargo run -p matchcond-front --example parse -- 'a.b(c)' 'has(x.y) && z'
//! ```
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

#[path = "../tests/common/mod.rs"]
mod common;

use common::debug::{with_kinds, with_offsets};
use matchcond_front::{parse, ParserOptions};

fn main() {
    let options = ParserOptions::default();
    let mut inputs: Vec<String> = std::env::args().skip(1).collect();
    if inputs.is_empty() {
        inputs.push("a.b(c)".to_owned());
    }
    for input in &inputs {
        match parse(input, &options) {
            Ok(p) => println!(
                "{input}\n  {}\n  {}\n",
                with_kinds(&p.expr),
                with_offsets(&p.expr)
            ),
            Err(e) => println!("{input}\n{e}\n"),
        }
    }
}
