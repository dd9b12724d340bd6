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
    if let Some(v) = plain_decimal(t) {
        return (Some(v), false);
    }
    let value = if t.contains(',') {
        t.replace(',', "").parse::<f64>()
    } else {
        t.parse::<f64>()
    };
    (value.ok().filter(|v| v.is_finite()), false)
}

/// `0.017`, `12`, `3.5` without the general float parser (one per testcase): digits with at
/// most one `.`, at most 15 digits in all. The digits as an integer are exact in an `f64`, as
/// is a power of ten up to 10^22, and one IEEE division of exact operands is correctly rounded:
/// the same value `str::parse` gives (Clinger's fast path). Anything else is `None`.
fn plain_decimal(t: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (mut digits, mut mantissa, mut fraction) = (0usize, 0u64, None);
    for b in t.bytes() {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                digits += 1;
                if let Some(f) = fraction.as_mut() {
                    *f += 1;
                }
            }
            b'.' if fraction.is_none() => fraction = Some(0usize),
            _ => return None,
        }
        if digits > 15 {
            return None;
        }
    }
    if digits == 0 {
        return None;
    }
    Some(mantissa as f64 / POW10[fraction.unwrap_or(0)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_decimals_read_as_the_float_parser_reads_them() {
        let mut texts: Vec<String> = [
            "0",
            "0.0",
            "12",
            "3.5",
            "0.017",
            "1.",
            ".5",
            "999999999999999",
        ]
        .map(str::to_owned)
        .to_vec();
        for i in 0..20_000u64 {
            let n = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 14;
            let digits = n.to_string();
            for cut in [0, 1, 3, digits.len() / 2, digits.len()] {
                let (a, b) = digits.split_at(cut.min(digits.len()));
                texts.push(format!("{a}.{b}"));
            }
        }
        for t in &texts {
            let general = t.parse::<f64>().ok();
            match plain_decimal(t) {
                Some(v) => assert_eq!(Some(v.to_bits()), general.map(f64::to_bits), "{t}"),
                // Only over 15 digits, or not a number at all, takes the general parser.
                None => assert!(
                    t.bytes().filter(u8::is_ascii_digit).count() > 15 || general.is_none(),
                    "{t}"
                ),
            }
        }
        for t in [
            "", ".", "1.2.3", "1e5", "-1", "+1", " 1", "1,000", "inf", "NaN",
        ] {
            assert_eq!(plain_decimal(t), None, "{t}");
        }
        assert_eq!(seconds(Some(" 1,234.5 ")), (Some(1234.5), false));
        assert_eq!(seconds(Some("-0.000000")), (None, true));
        assert_eq!(seconds(Some("0.250")), (Some(0.25), false));
    }
}
