//! Syntax layer of matchcond: the CEL lexer and parser, the AST, source positions, the type
//! checker and the declarations it checks against, and the rendering of compile issues in
//! cel-go's format.

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
