//! Colour on a terminal: `--color auto|always|never`. `auto` (the default) colours an
//! output stream only when it is a terminal and `NO_COLOR` is unset or empty; `always`
//! colours even through pipes (and despite `NO_COLOR`); `never` does not. Without colour the
//! text is byte for byte what it is with colour less the escape sequences. JSON output is
//! never coloured.

use std::ffi::OsStr;
use std::io::IsTerminal;

use clap::ValueEnum;

/// The `--color` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when the output is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Whether to colour a stream.
pub fn enabled(choice: ColorChoice, is_terminal: bool, no_color: Option<&OsStr>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => is_terminal && no_color.is_none_or(OsStr::is_empty),
    }
}

/// The painters of standard output and standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Streams {
    /// For standard output.
    pub out: Paint,
    /// For standard error.
    pub err: Paint,
}

impl Streams {
    /// The painters for a choice, looking at the streams and at `NO_COLOR`.
    pub fn detect(choice: ColorChoice) -> Streams {
        let no_color = std::env::var_os("NO_COLOR");
        Streams {
            out: Paint(enabled(
                choice,
                std::io::stdout().is_terminal(),
                no_color.as_deref(),
            )),
            err: Paint(enabled(
                choice,
                std::io::stderr().is_terminal(),
                no_color.as_deref(),
            )),
        }
    }
}

/// The colours used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Errors, rejections: red.
    Error,
    /// Warnings, skips: yellow.
    Warning,
    /// Success: green.
    Good,
}

impl Tone {
    fn code(self) -> &'static str {
        match self {
            Tone::Error => "31",
            Tone::Warning => "33",
            Tone::Good => "32",
        }
    }
}

/// Adds colour to text, or leaves it as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paint(pub bool);

impl Paint {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.0 && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Text in a colour.
    pub fn tone(self, tone: Tone, text: &str) -> String {
        self.wrap(tone.code(), text)
    }

    /// Bold text in a colour (labels such as `warning`).
    pub fn label(self, tone: Tone, text: &str) -> String {
        self.wrap(&format!("1;{}", tone.code()), text)
    }

    /// Bold text (locations).
    pub fn strong(self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// A message that may hold source snippets (` | <source>` and ` | ...^` lines, as
    /// compile errors render them): its message lines in `tone`, the source lines as they
    /// are, the carets in bold `tone`.
    pub fn message(self, tone: Tone, text: &str) -> String {
        self.lines(text, Some(tone), tone)
    }

    /// Snippet lines only (the message lines stay as they are): carets in bold `tone`.
    pub fn snippet(self, tone: Tone, text: &str) -> String {
        self.lines(text, None, tone)
    }

    fn lines(self, text: &str, message: Option<Tone>, caret: Tone) -> String {
        if !self.0 {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len() + 16);
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            match line.strip_prefix(" | ") {
                Some(rest) if is_caret_line(rest) => {
                    let split = rest.char_indices().last().map_or(rest.len(), |(at, _)| at);
                    let (dots, mark) = rest.split_at(split);
                    out.push_str(" | ");
                    out.push_str(dots);
                    out.push_str(&self.label(caret, mark));
                }
                Some(_) => out.push_str(line),
                None => match message {
                    Some(t) => out.push_str(&self.tone(t, line)),
                    None => out.push_str(line),
                },
            }
        }
        out
    }
}

/// `....^`: dots (or wide dots) then one caret.
fn is_caret_line(rest: &str) -> bool {
    let mut chars = rest.chars();
    matches!(chars.next_back(), Some('^' | '\u{FF3E}'))
        && chars.all(|c| c == '.' || c == '\u{FF0E}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choice() {
        let set = Some(OsStr::new("1"));
        let empty = Some(OsStr::new(""));
        assert!(enabled(ColorChoice::Auto, true, None));
        assert!(enabled(ColorChoice::Auto, true, empty));
        assert!(!enabled(ColorChoice::Auto, true, set));
        assert!(!enabled(ColorChoice::Auto, false, None));
        assert!(enabled(ColorChoice::Always, false, set));
        assert!(!enabled(ColorChoice::Never, true, None));
    }

    #[test]
    fn painting() {
        let on = Paint(true);
        let off = Paint(false);
        assert_eq!(on.tone(Tone::Error, "x"), "\x1b[31mx\x1b[0m");
        assert_eq!(
            on.label(Tone::Warning, "warning"),
            "\x1b[1;33mwarning\x1b[0m"
        );
        assert_eq!(on.strong("a"), "\x1b[1ma\x1b[0m");
        assert_eq!(on.tone(Tone::Good, ""), "");
        let text = "bad: ERROR: <input>:1:3: no\n | a é b\n | ..\u{FF0E}^";
        assert_eq!(off.message(Tone::Error, text), text);
        assert_eq!(
            on.message(Tone::Error, text),
            "\x1b[31mbad: ERROR: <input>:1:3: no\x1b[0m\n | a é b\n | ..\u{FF0E}\x1b[1;31m^\x1b[0m"
        );
        assert_eq!(
            on.snippet(Tone::Warning, " | x\n | \u{FF3E}"),
            " | x\n | \x1b[1;33m\u{FF3E}\x1b[0m"
        );
        // A source line that looks like dots is not a caret line without its caret.
        assert_eq!(on.snippet(Tone::Warning, " | ..."), " | ...");
    }
}
