//! The strings extension (cel-go `ext/strings.go`, `ext.Strings(ext.StringsVersion(n))`):
//! version 0 until Kubernetes 1.29, version 2 from then. Indices count code points.
//!
//! Version 0: `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `replace`, `split`,
//! `substring`, `trim`, `upperAscii`, `join`. Version 1 adds `format` ([`format`]) and
//! `strings.quote`; version 3 adds string `reverse`. (`join` is declared at every version;
//! versions 0 and 1 implement it differently only in the error for a non-string element.)
//! The Kubernetes cost estimator prices most of these functions (by name).

use matchcond_front::Type;
use matchcond_gocompat::strconv::simple_escape;

use super::definition::{
    function, global, member, Behaviours, Definition, Implementation, Library, StringOffsets,
};
use super::support::gofmt::value_v;
use super::support::guard::G;
use super::support::{fail, string_index_error, unary};
use crate::cost::{Cost, Estimate, ResultSize};
use crate::error::EvalError;
use crate::limits::{check_list_size, check_string_size};
use crate::value::Value;

mod format;

/// The formatting clauses of `string.format`, for the compile-time validation of literal
/// format strings.
pub use format::{parse_clause as parse_format_clause, Clause as FormatClause};

// The test data has values such as 2.71828 and 3.14 that are not meant as constants.
#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests;

/// The extension at a version: 0 before Kubernetes 1.29, 2 from then.
pub(crate) fn library(version: u32) -> Definition {
    let s = || Type::String;
    let i = || Type::Int;
    let library = match version {
        0 => Library::StringsV0,
        _ => Library::StringsV2,
    };
    let mut fns = vec![
        function(
            "charAt",
            [member("string_char_at_int", [s(), i()], s(), char_at)],
        ),
        function(
            "indexOf",
            [
                member("string_index_of_string", [s(), s()], i(), index_of::<0>)
                    .by_behaviours(index_of_by),
                member(
                    "string_index_of_string_int",
                    [s(), s(), i()],
                    i(),
                    index_of::<0>,
                )
                .by_behaviours(index_of_by),
            ],
        )
        .estimate_by(Estimate::ListTraversal),
        function(
            "lastIndexOf",
            [
                member(
                    "string_last_index_of_string",
                    [s(), s()],
                    i(),
                    last_index_of::<0>,
                )
                .by_behaviours(last_index_of_by),
                member(
                    "string_last_index_of_string_int",
                    [s(), s(), i()],
                    i(),
                    last_index_of_offset::<0>,
                )
                .by_behaviours(last_index_of_offset_by),
            ],
        )
        .estimate_by(Estimate::ListTraversal),
        function(
            "lowerAscii",
            [member("string_lower_ascii", [s()], s(), lower_ascii)],
        )
        .estimate_by(Estimate::StringTraversal)
        .result_sized(ResultSize::Receiver),
        function(
            "replace",
            [
                member(
                    "string_replace_string_string",
                    [s(), s(), s()],
                    s(),
                    replace,
                ),
                member(
                    "string_replace_string_string_int",
                    [s(), s(), s(), i()],
                    s(),
                    replace,
                ),
            ],
        )
        .estimate_by(Estimate::StringTraversalTwice),
        function(
            "split",
            [
                member("string_split_string", [s(), s()], Type::list(s()), split),
                member(
                    "string_split_string_int",
                    [s(), s(), i()],
                    Type::list(s()),
                    split,
                ),
            ],
        )
        .estimate_by(Estimate::StringTraversalTwice)
        .result_sized(ResultSize::Pieces),
        function(
            "substring",
            [
                member("string_substring_int", [s(), i()], s(), substring),
                member(
                    "string_substring_int_int",
                    [s(), i(), i()],
                    s(),
                    substring_range,
                ),
            ],
        )
        .estimate_by(Estimate::StringTraversal)
        .result_sized(ResultSize::UpToReceiver),
        function("trim", [member("string_trim", [s()], s(), trim)])
            .estimate_by(Estimate::StringTraversal)
            .result_sized(ResultSize::Receiver),
        function(
            "upperAscii",
            [member("string_upper_ascii", [s()], s(), upper_ascii)],
        )
        .estimate_by(Estimate::StringTraversal)
        .result_sized(ResultSize::Receiver),
    ];
    if version >= 1 {
        fns.push(function(
            "format",
            [member(
                "string_format",
                [s(), Type::list(Type::Dyn)],
                s(),
                format::string_format,
            )
            .by_behaviours(string_format)
            .cost_rule(Cost::FIRST_TENTH)],
        ));
        fns.push(function(
            "strings.quote",
            [global("strings_quote", [s()], s(), quote).cost_rule(Cost::FIRST_TENTH)],
        ));
    }
    fns.push(
        function(
            "join",
            [
                member("list_join", [Type::list(s())], s(), join),
                member(
                    "list_join_string",
                    [Type::list(s()), s()],
                    s(),
                    join_separator,
                ),
            ],
        )
        .estimate_by(Estimate::JoinedResult)
        .result_sized(ResultSize::Joined),
    );
    if version >= 3 {
        fns.push(function(
            "reverse",
            [member("string_reverse", [s()], s(), reverse)],
        ));
    }
    Definition::new(library).functions(fns)
}

/// `string.format` as the binary's golang.org/x/text prints `%e`.
fn string_format(behaviours: Behaviours) -> Implementation {
    if behaviours.spaced_scientific_format {
        format::string_format_spaced
    } else {
        format::string_format
    }
}

/// `string.charAt(int) -> string`: the code point at the index; `''` at the end; an error
/// `index out of range: <i>` before the start or after the end.
fn char_at<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s), Value::Int(i)] => {
            let len = s.chars().count();
            let idx = usize::try_from(*i)
                .ok()
                .filter(|&idx| idx <= len)
                .ok_or_else(|| string_index_error(*i))?;
            Ok(match s.chars().nth(idx) {
                Some(c) => Value::string(c.to_string()),
                None => Value::string(""),
            })
        }
        _ => Err(EvalError::no_such_overload("charAt", args)),
    }
}

/// A search for `sub` in `s` from a code-point offset: decided before it starts, or the
/// code points of both to search.
enum Search {
    /// The answer.
    Decided(i64),
    /// The code points of `s` and of `sub`.
    Runes(Vec<char>, Vec<char>),
}

/// Starts a search from `offset`, as cel-go's `indexOfOffset`/`lastIndexOfOffset` do: the
/// empty string matches at the offset, unchecked (`'abc'.indexOf('', 10)` is 10,
/// `'abc'.indexOf('', -1)` is -1); otherwise a negative offset is an error, and an offset at
/// or past the end is an error before cel-go v0.22 and matches nothing from then on.
fn search(s: &str, sub: &str, offset: i64, offsets: StringOffsets) -> Result<Search, EvalError> {
    if sub.is_empty() {
        return Ok(Search::Decided(offset));
    }
    if offset < 0 {
        return Err(string_index_error(offset));
    }
    let runes: Vec<char> = s.chars().collect();
    let len = runes.len() as i64;
    if offset >= len {
        return match offsets {
            StringOffsets::PastEndIsError => Err(string_index_error(offset)),
            StringOffsets::PastEndNotFound | StringOffsets::LongerNotFound => {
                Ok(Search::Decided(-1))
            }
        };
    }
    Ok(Search::Runes(runes, sub.chars().collect()))
}

/// Code-point index of the first occurrence of `sub` at or after `offset`.
fn index_of_from(
    s: &str,
    sub: &str,
    offset: i64,
    offsets: StringOffsets,
) -> Result<i64, EvalError> {
    let (runes, sub) = match search(s, sub, offset, offsets)? {
        Search::Decided(i) => return Ok(i),
        Search::Runes(runes, sub) => (runes, sub),
    };
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let found = runes
        .get(start..)
        .and_then(|rest| rest.windows(sub.len()).position(|w| w == sub.as_slice()));
    Ok(match found {
        Some(p) => (start + p) as i64,
        None => -1,
    })
}

/// Code-point index of the last occurrence of `sub` starting at or before `offset`.
fn last_index_of_from(
    s: &str,
    sub: &str,
    offset: i64,
    offsets: StringOffsets,
) -> Result<i64, EvalError> {
    let (runes, sub) = match search(s, sub, offset, offsets)? {
        Search::Decided(i) => return Ok(i),
        Search::Runes(runes, sub) => (runes, sub),
    };
    let len = runes.len() as i64;
    let last_start = offset.min(len - sub.len() as i64);
    if last_start < 0 {
        return Ok(-1);
    }
    let end = usize::try_from(last_start).unwrap_or(0) + sub.len();
    let found = runes
        .get(..end)
        .and_then(|head| head.windows(sub.len()).rposition(|w| w == sub.as_slice()));
    Ok(match found {
        Some(p) => p as i64,
        None => -1,
    })
}

/// The first `n` arguments of an overload that also exists with a trailing `int`, and that
/// `int`, or `default` where the call has no trailing argument.
fn with_trailing_int<'v, 'a>(
    args: &'v [Value<'a>],
    n: usize,
    default: i64,
) -> Option<(&'v [Value<'a>], i64)> {
    match args.split_at_checked(n)? {
        (head, []) => Some((head, default)),
        (head, [Value::Int(i)]) => Some((head, *i)),
        _ => None,
    }
}

/// `indexOf` and `lastIndexOf` as the binary's cel-go treats offsets.
fn index_of_by(behaviours: Behaviours) -> Implementation {
    match behaviours.string_offsets {
        StringOffsets::PastEndIsError => index_of::<{ StringOffsets::PAST_END_IS_ERROR }>,
        StringOffsets::PastEndNotFound => index_of::<{ StringOffsets::PAST_END_NOT_FOUND }>,
        StringOffsets::LongerNotFound => index_of::<{ StringOffsets::LONGER_NOT_FOUND }>,
    }
}

/// `lastIndexOf(string)` as the binary's cel-go treats offsets.
fn last_index_of_by(behaviours: Behaviours) -> Implementation {
    match behaviours.string_offsets {
        StringOffsets::PastEndIsError => last_index_of::<{ StringOffsets::PAST_END_IS_ERROR }>,
        StringOffsets::PastEndNotFound => last_index_of::<{ StringOffsets::PAST_END_NOT_FOUND }>,
        StringOffsets::LongerNotFound => last_index_of::<{ StringOffsets::LONGER_NOT_FOUND }>,
    }
}

/// `lastIndexOf(string, int)` as the binary's cel-go treats offsets.
fn last_index_of_offset_by(behaviours: Behaviours) -> Implementation {
    match behaviours.string_offsets {
        StringOffsets::PastEndIsError => {
            last_index_of_offset::<{ StringOffsets::PAST_END_IS_ERROR }>
        }
        StringOffsets::PastEndNotFound => {
            last_index_of_offset::<{ StringOffsets::PAST_END_NOT_FOUND }>
        }
        StringOffsets::LongerNotFound => {
            last_index_of_offset::<{ StringOffsets::LONGER_NOT_FOUND }>
        }
    }
}

/// `string.indexOf(string) -> int`, `string.indexOf(string, int) -> int` (from offset 0
/// without it)
fn index_of<'a, const OFFSETS: u8>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let offsets = StringOffsets::from_code(OFFSETS);
    match with_trailing_int(args, 2, 0) {
        Some(([Value::String(s), Value::String(sub)], off)) => {
            Ok(Value::Int(index_of_from(s, sub, off, offsets)?))
        }
        _ => Err(EvalError::no_such_overload("indexOf", args)),
    }
}

/// `string.lastIndexOf(string) -> int`: from the last code point; cel-go v0.26 and later
/// first answer -1 when the substring is longer (in bytes) than the string, before which
/// a non-empty substring in an empty string is `index out of range: -1`.
fn last_index_of<'a, const OFFSETS: u8>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let offsets = StringOffsets::from_code(OFFSETS);
    match args {
        [Value::String(s), Value::String(sub)] => {
            let len = s.chars().count() as i64;
            if sub.is_empty() {
                return Ok(Value::Int(len));
            }
            if offsets == StringOffsets::LongerNotFound && s.len() < sub.len() {
                return Ok(Value::Int(-1));
            }
            Ok(Value::Int(last_index_of_from(s, sub, len - 1, offsets)?))
        }
        _ => Err(EvalError::no_such_overload("lastIndexOf", args)),
    }
}

/// `string.lastIndexOf(string, int) -> int`
fn last_index_of_offset<'a, const OFFSETS: u8>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let offsets = StringOffsets::from_code(OFFSETS);
    match args {
        [Value::String(s), Value::String(sub), Value::Int(off)] => {
            Ok(Value::Int(last_index_of_from(s, sub, *off, offsets)?))
        }
        _ => Err(EvalError::no_such_overload("lastIndexOf", args)),
    }
}

/// `string.lowerAscii() -> string`
fn lower_ascii<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    string_to_string("lowerAscii", args, str::to_ascii_lowercase)
}

/// `string.upperAscii() -> string`
fn upper_ascii<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    string_to_string("upperAscii", args, str::to_ascii_uppercase)
}

/// `string.function() -> string`, the result `convert` gives.
fn string_to_string<'a>(
    function: &str,
    args: &[Value<'a>],
    convert: fn(&str) -> String,
) -> Result<Value<'a>, EvalError> {
    unary(function, args, |v| match v {
        Value::String(s) => Some(Value::string(convert(s))),
        _ => None,
    })
}

/// Go's `strings.Replace`: at most `n` replacements (all when `n < 0`); an empty `old` matches
/// before every code point and at the end.
/// The result is checked against the string size limit before it is built.
fn replace_go(s: &str, old: &str, new: &str, n: i64) -> Result<String, EvalError> {
    if new.len() > old.len() {
        let found = if old.is_empty() {
            s.chars().count() + 1
        } else {
            s.matches(old).count()
        };
        let replaced = usize::try_from(n).map_or(found, |n| n.min(found));
        let growth = (new.len() - old.len()).saturating_mul(replaced);
        check_string_size(s.len().saturating_add(growth))?;
    }
    Ok(match usize::try_from(n) {
        Ok(n) => s.replacen(old, new, n),
        Err(_) => s.replace(old, new),
    })
}

/// `string.replace(string, string) -> string`, `string.replace(string, string, int) ->
/// string` (every occurrence without the count)
fn replace<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match with_trailing_int(args, 3, -1) {
        Some(([Value::String(s), Value::String(old), Value::String(new)], n)) => {
            Ok(Value::string(replace_go(s, old, new, n)?))
        }
        _ => Err(EvalError::no_such_overload("replace", args)),
    }
}

/// Go's `strings.SplitN`: `n == 0` gives no parts, `n < 0` all parts, otherwise at most `n`
/// parts (the last holding the rest). An empty separator splits into code points. The number
/// of parts is checked against the list size limit first.
fn split_go(s: &str, sep: &str, n: i64) -> Result<Vec<String>, EvalError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let limit = usize::try_from(n).ok();
    let found = if sep.is_empty() {
        s.chars().count()
    } else {
        s.matches(sep).count() + 1
    };
    check_list_size(limit.map_or(found, |l| l.min(found)))?;
    if sep.is_empty() {
        let count = found;
        let parts = limit.map_or(count, |l| l.min(count));
        let mut out = Vec::with_capacity(parts);
        let mut rest = s;
        for _ in 1..parts {
            let mut chars = rest.chars();
            if let Some(c) = chars.next() {
                out.push(c.to_string());
            }
            rest = chars.as_str();
        }
        if parts > 0 {
            out.push(rest.to_string());
        }
        return Ok(out);
    }
    Ok(match limit {
        Some(l) => s.splitn(l, sep).map(str::to_string).collect(),
        None => s.split(sep).map(str::to_string).collect(),
    })
}

fn string_list<'a>(parts: Vec<String>) -> Value<'a> {
    Value::list(parts.into_iter().map(Value::string).collect())
}

/// `string.split(string) -> list(string)`, `string.split(string, int) -> list(string)` (all
/// parts without the count)
fn split<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match with_trailing_int(args, 2, -1) {
        Some(([Value::String(s), Value::String(sep)], n)) => Ok(string_list(split_go(s, sep, n)?)),
        _ => Err(EvalError::no_such_overload("split", args)),
    }
}

/// Byte offset of the code point at `idx` (the string's length when `idx` is the count).
fn byte_offset(s: &str, idx: usize) -> usize {
    s.char_indices().nth(idx).map_or(s.len(), |(b, _)| b)
}

/// `string.substring(int) -> string`
fn substring<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s), Value::Int(start)] => {
            let len = s.chars().count();
            let idx = usize::try_from(*start)
                .ok()
                .filter(|&i| i <= len)
                .ok_or_else(|| string_index_error(*start))?;
            let from = byte_offset(s, idx);
            Ok(Value::string(s.get(from..).unwrap_or_default()))
        }
        _ => Err(EvalError::no_such_overload("substring", args)),
    }
}

/// `string.substring(int, int) -> string`
fn substring_range<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s), Value::Int(start), Value::Int(end)] => {
            if start > end {
                return Err(fail(format!(
                    "invalid substring range. start: {start}, end: {end}"
                )));
            }
            let len = s.chars().count();
            let in_range = |i: i64| usize::try_from(i).ok().filter(|&i| i <= len);
            let from = in_range(*start).ok_or_else(|| string_index_error(*start))?;
            let to = in_range(*end).ok_or_else(|| string_index_error(*end))?;
            let (from, to) = (byte_offset(s, from), byte_offset(s, to));
            Ok(Value::string(s.get(from..to).unwrap_or_default()))
        }
        _ => Err(EvalError::no_such_overload("substring", args)),
    }
}

/// `string.trim() -> string`: removes leading and trailing Unicode white space (the
/// White_Space property, as Go's `strings.TrimSpace`).
fn trim<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => Ok(Value::string(s.trim())),
        _ => Err(EvalError::no_such_overload("trim", args)),
    }
}

/// `string.reverse() -> string` (strings extension version 3): the code points in reverse.
fn reverse<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => Ok(Value::string(s.chars().rev().collect::<String>())),
        _ => Err(EvalError::no_such_overload("reverse", args)),
    }
}

/// Joins the strings of a list. An element that is not a string is an error
/// `join: invalid input: <elem>` (strings extension version 2 and later; versions 0 and 1
/// report a type conversion error instead).
fn join_list<'a>(list: &crate::value::List<'a>, sep: &str) -> Result<Value<'a>, EvalError> {
    // The size of the result, checked before it is built (the elements may all be one
    // large string).
    let mut size = 0usize;
    for (i, elem) in list.iter().enumerate() {
        if i != 0 {
            size = size.saturating_add(sep.len());
        }
        match &elem {
            Value::String(s) => size = size.saturating_add(s.len()),
            other => return Err(fail(format!("join: invalid input: {}", value_v(other)))),
        }
        check_string_size(size)?;
    }
    let mut out = String::with_capacity(size);
    for (i, elem) in list.iter().enumerate() {
        if i != 0 {
            out.push_str(sep);
        }
        match &elem {
            Value::String(s) => out.push_str(s),
            other => return Err(fail(format!("join: invalid input: {}", value_v(other)))),
        }
    }
    Ok(Value::string(out))
}

/// The guard of `join`'s receiver.
const STRING_LIST: G = G::List(&G::Str);

/// `list(string).join() -> string`
fn join<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [list @ Value::List(l)] if STRING_LIST.accepts(list) => join_list(l, ""),
        _ => Err(EvalError::no_such_overload("join", args)),
    }
}

/// `list(string).join(string) -> string`
fn join_separator<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [list @ Value::List(l), Value::String(sep)] if STRING_LIST.accepts(list) => {
            join_list(l, sep)
        }
        _ => Err(EvalError::no_such_overload("join", args)),
    }
}

/// `strings.quote(string) -> string`: the string in double quotes with `\a \b \f \n \r \t \v
/// \\ \"` escaped; everything else as it is.
fn quote<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => {
            let escaped = s
                .chars()
                .filter(|c| matches!(c, '\u{7}'..='\u{d}' | '\\' | '"'))
                .count();
            check_string_size(s.len().saturating_add(escaped).saturating_add(2))?;
            let mut out = String::with_capacity(s.len() + escaped + 2);
            out.push('"');
            for c in s.chars() {
                match simple_escape(c) {
                    Some(escape) => out.push_str(escape),
                    None => out.push(c),
                }
            }
            out.push('"');
            Ok(Value::string(out))
        }
        _ => Err(EvalError::no_such_overload("strings.quote", args)),
    }
}
