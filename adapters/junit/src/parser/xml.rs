//! XML-level helpers of the JUnit reader: the input's encoding, byte offsets as places,
//! attribute values (duplicates refused) and durations.

use std::borrow::Cow;

use gapscore_adapter_sdk::{AdapterError, InputError, Location};
use quick_xml::XmlVersion;
use quick_xml::events::BytesStart;
/// Re-encodes UTF-16 (with a byte-order mark) as UTF-8 and drops a UTF-8 byte-order mark.
pub(super) fn to_utf8(input: &[u8]) -> Result<Cow<'_, [u8]>, AdapterError> {
    let utf16 = |be: bool| -> Result<Cow<'_, [u8]>, AdapterError> {
        let units = input[2..].chunks(2).map(|c| {
            let pair = [c[0], *c.get(1).unwrap_or(&0)];
            if be {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            }
        });
        let mut out = String::with_capacity(input.len() / 2);
        for (i, ch) in char::decode_utf16(units).enumerate() {
            match ch {
                Ok(c) => out.push(c),
                Err(_) => {
                    return Err(AdapterError::Input(InputError::Syntax {
                        location: Location::Offset((i * 2 + 2) as u64),
                        message: "invalid UTF-16 (unpaired surrogate)".into(),
                    }));
                }
            }
        }
        // The declaration still says UTF-16; the text is UTF-8 now.
        Ok(Cow::Owned(
            out.replacen("encoding=\"UTF-16\"", "encoding=\"UTF-8\"", 1)
                .replacen("encoding=\"utf-16\"", "encoding=\"UTF-8\"", 1)
                .into_bytes(),
        ))
    };
    match input {
        [0xEF, 0xBB, 0xBF, rest @ ..] => Ok(Cow::Borrowed(rest)),
        [0xFF, 0xFE, ..] => utf16(false),
        [0xFE, 0xFF, ..] => utf16(true),
        _ => Ok(Cow::Borrowed(input)),
    }
}

/// 1-based line and column of a byte offset.
pub(super) fn line_col(text: &[u8], offset: usize) -> Location {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    Location::LineCol { line, column }
}

pub(super) fn attr(e: &BytesStart<'_>, key: &str) -> Result<Option<String>, quick_xml::Error> {
    let [v] = attrs(e, [key])?;
    Ok(v)
}

/// An error in an element: from the XML reader, or found by this reader.
#[derive(Debug)]
pub(super) enum StartError {
    Xml(quick_xml::Error),
    Message(String),
}

impl From<quick_xml::Error> for StartError {
    fn from(e: quick_xml::Error) -> Self {
        StartError::Xml(e)
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The same words as an undefined entity in text, without quick-xml's byte range.
            StartError::Xml(quick_xml::Error::Escape(
                quick_xml::escape::EscapeError::UnrecognizedEntity(_, name),
            )) => write!(
                f,
                "undefined entity `&{};` (entities declared in a DTD are never expanded)",
                name.escape_debug()
            ),
            StartError::Xml(e) => e.fmt(f),
            StartError::Message(m) => f.write_str(m),
        }
    }
}

pub(super) fn duplicate_attribute(key: &str) -> StartError {
    StartError::Message(format!("duplicated attribute `{key}`"))
}

/// The values of several attributes in one pass over the element (duplicates still refused).
pub(super) fn attrs<const N: usize>(
    e: &BytesStart<'_>,
    keys: [&str; N],
) -> Result<[Option<String>; N], quick_xml::Error> {
    let mut out: [Option<String>; N] = std::array::from_fn(|_| None);
    for a in e.attributes() {
        let a = a.map_err(quick_xml::Error::from)?;
        if let Some(i) = keys.iter().position(|k| *k == a.key.as_ref()) {
            out[i] = Some(a.normalized_value(XmlVersion::Implicit1_0)?.into_owned());
        }
    }
    Ok(out)
}

/// `1,234.5` → 1234.5; negative, missing or unreadable → unknown (never a fake zero).
pub(super) fn seconds(text: Option<&str>) -> (Option<f64>, bool) {
    let Some(t) = text else { return (None, false) };
    let t = t.trim();
    if t.starts_with('-') {
        return (None, true);
    }
    let value = if t.contains(',') {
        t.replace(',', "").parse::<f64>()
    } else {
        t.parse::<f64>()
    };
    (value.ok().filter(|v| v.is_finite()), false)
}
