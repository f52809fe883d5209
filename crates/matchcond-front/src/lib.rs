//! The front end of matchcond: the CEL lexer and parser (macros expanded), the AST, source
//! positions and the rendering of compile issues in cel-go's format, types, the type checker
//! and the form of the declarations it checks against (the libraries that declare functions
//! are `matchcond-runtime`'s, each beside its implementations).
//!
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond: its API follows what the other
//! crates need and changes without notice. Use the `matchcond` crate (the facade at the root
//! of the workspace), whose curated API is the one kept stable; it does not re-export this
//! crate.

pub mod ast;
pub mod checker;
pub mod decls;
mod lexer;
mod macros;
mod parser;
pub mod source;
pub mod types;

pub use parser::{parse, Parsed, ParserOptions};
pub use source::{Issue, Issues, Location, Source};
pub use types::Type;
