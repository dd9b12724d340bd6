//! Deeply nested documents: valid JSON is read however deep it nests, up to
//! [`MAX_READ_DEPTH`] arrays and objects. serde_json stops at 128 levels by default (its
//! recursion limit), which made a valid deep report "unreadable"; the checker lifts that limit
//! and instead measures the depth first, in one pass without recursion, then runs the parse and
//! every recursive walk of the document (schemas, leak scan, pointer location, the drop of the
//! parsed value) on a thread whose stack is sized for that depth. A document deeper than the
//! limit is refused unread with its depth, never a stack overflow.

use serde::Deserialize;
use serde_json::Value;

/// The deepest nesting the checker reads: 20 000 arrays and objects. A Gap Report nests five
/// or six levels; the limit only bounds the stack a hostile document can make the checker use.
pub const MAX_READ_DEPTH: usize = 20_000;

/// Up to this depth the caller's stack is enough (serde_json's own default limit).
const SHALLOW: usize = 128;

/// Stack per level of nesting: an unoptimised build reads a document nested
/// [`MAX_READ_DEPTH`] deep at any of the places the recursive walks go (failure strings with a
/// sealed directory, schema-checked fields, history, level 4) with 2 KiB per level and 1 MiB
/// besides (the ignored `limits` test, which `.ci/run` runs); this is four times that, and the
/// base sixteen.
const STACK_PER_LEVEL: usize = 8 * 1024;

/// Stack for everything else a check does.
const BASE_STACK: usize = 16 * 1024 * 1024;

/// How deeply arrays and objects nest in `bytes` (0 for a scalar), counted outside strings in
/// one pass. For text that is not JSON the count means nothing, but it bounds what any reader
/// of it would recurse into.
pub(crate) fn nesting(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        i += 1;
    }
    deepest
}

/// The depth of `bytes` (named `path` in messages) when the checker reads it; else why not.
pub(crate) fn readable(path: &str, bytes: &[u8]) -> Result<usize, String> {
    let depth = nesting(bytes);
    if depth > MAX_READ_DEPTH {
        return Err(format!(
            "`{path}` nests arrays and objects {depth} levels deep, deeper than the {MAX_READ_DEPTH} levels the checker reads"
        ));
    }
    Ok(depth)
}

/// Parses `text` as one JSON value with serde_json's recursion limit lifted: the caller has
/// measured the depth and given the stack for it ([`with_stack_for`]).
pub(crate) fn parse_unbounded(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Runs `f` with a stack for a document nesting `depth` levels: on the caller's stack when it
/// is shallow, else on a thread of its own (an error when no such thread could be started).
pub(crate) fn with_stack_for<T: Send>(
    depth: usize,
    f: impl FnOnce() -> T + Send,
) -> Result<T, String> {
    if depth <= SHALLOW {
        return Ok(f());
    }
    let stack = BASE_STACK + depth.min(MAX_READ_DEPTH) * STACK_PER_LEVEL;
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("gapscore-check-deep".into())
            .stack_size(stack)
            .spawn_scoped(scope, f)
            .map_err(|e| {
                format!("no thread with the {stack}-byte stack a document {depth} levels deep needs: {e}")
            })?;
        match handle.join() {
            Ok(t) => Ok(t),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_counted_outside_strings() {
        assert_eq!(nesting(b"1"), 0);
        assert_eq!(nesting(br#"{"a": [1, {"b": []}]}"#), 4);
        assert_eq!(nesting(br#"{"a": "[[[[\"{{{"}"#), 1);
        assert_eq!(nesting(br#"[[]] [[[ ]]]"#), 3);
    }

    #[test]
    fn deep_json_parses_past_serde_jsons_default_limit() {
        let text = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        assert!(serde_json::from_str::<Value>(&text).is_err());
        let v = with_stack_for(nesting(text.as_bytes()), || {
            parse_unbounded(&text).map(|v| v.is_array())
        });
        assert!(matches!(v, Ok(Ok(true))));
        assert!(parse_unbounded("[1] 2").is_err());
    }
}
