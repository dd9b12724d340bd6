//! What a file no adapter claims is, when gapscore can tell: empty, whitespace only, binary, or
//! a known test-result format gapscore does not read (NUnit XML, xUnit.net v2 XML, Visual
//! Studio TRX, CSV), with how to get a format it reads. [`describe`] is asked only after every
//! adapter (plugins included) declined the file, so a plugin for one of these formats still
//! reads it.

/// How to get JUnit XML out of a .NET test run, for the three .NET formats.
const DOTNET_JUNIT: &str = "rerun with `dotnet test --logger junit` (the JunitXml.TestLogger package) to write JUnit XML, which gapscore reads";

/// Describes a file no adapter recognises, from its first bytes (decoded to UTF-8) and its
/// name; `None` when it is nothing gapscore can name.
pub(crate) fn describe(prefix: &[u8], file_name: Option<&str>) -> Option<String> {
    let text = gapscore_adapter_sdk::encoding::strip_bom(prefix);
    if text.is_empty() {
        return Some(
            "the file is empty: a result file holds at least one test; did the test run write it, or fail before it could?"
                .to_owned(),
        );
    }
    if text.iter().all(u8::is_ascii_whitespace) {
        return Some(format!(
            "the file holds only whitespace ({} byte{}): no test results; did the test run write it, or fail before it could?",
            text.len(),
            if text.len() == 1 { "" } else { "s" }
        ));
    }
    if let Some(what) = binary(text) {
        return Some(format!(
            "{what}, not test results (gapscore reads text formats: JUnit XML, JSON, TAP, go test output)"
        ));
    }
    let trimmed = text.trim_ascii_start();
    if trimmed.starts_with(b"<") {
        return xml(trimmed);
    }
    if is_csv(text, file_name) {
        return Some(
            "a CSV file, which gapscore does not read; write the results as JUnit XML, or as the spec's simple JSON format (`{\"tests\": [{\"name\": ..., \"status\": ...}]}`)"
                .to_owned(),
        );
    }
    None
}

/// Binary content: a known archive, a NUL byte (after UTF-16 decoding, text has none), or bytes
/// that are not UTF-8.
fn binary(text: &[u8]) -> Option<String> {
    if text.starts_with(b"\x1F\x8B") {
        return Some("gzip-compressed data (decompress it first: `gunzip FILE`)".to_owned());
    }
    if text.starts_with(b"PK\x03\x04") {
        return Some(
            "a ZIP archive (unpack it, then name the result files inside: `unzip FILE`)".to_owned(),
        );
    }
    if let Some(at) = text.iter().position(|&b| b == 0) {
        return Some(format!("binary data (a NUL byte at byte {at})"));
    }
    // Not UTF-8 (a sequence cut by the end of the prefix is not counted).
    match std::str::from_utf8(text) {
        Err(e) if e.error_len().is_some() => Some(format!(
            "binary data or text that is not UTF-8 (an invalid byte at byte {}; gapscore reads UTF-8 and UTF-16)",
            e.valid_up_to()
        )),
        _ => None,
    }
}

/// The first element's name, after the XML declaration, comments, processing instructions and
/// a DOCTYPE; `None` when the prefix does not get that far.
fn root_element(mut s: &[u8]) -> Option<&[u8]> {
    loop {
        s = s.trim_ascii_start();
        if let Some(rest) = s.strip_prefix(b"<!--") {
            s = &rest[find(rest, b"-->")? + 3..];
        } else if let Some(rest) = s.strip_prefix(b"<?") {
            s = &rest[find(rest, b"?>")? + 2..];
        } else if let Some(rest) = s.strip_prefix(b"<!") {
            s = &rest[find(rest, b">")? + 1..];
        } else {
            let rest = s.strip_prefix(b"<")?;
            let end = rest
                .iter()
                .position(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
                .unwrap_or(rest.len());
            return Some(&rest[..end]).filter(|n| !n.is_empty());
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// An XML document that is not JUnit XML: the .NET formats by their root element, anything
/// else by its root's name.
fn xml(text: &[u8]) -> Option<String> {
    let root = root_element(text)?;
    let local = root.rsplit(|&b| b == b':').next().unwrap_or(root);
    let what = match local {
        b"TestRun" => {
            let hint = if find(text, b"TeamTest/2010").is_some() {
                ""
            } else {
                " (by its root element)"
            };
            return Some(format!(
                "a Visual Studio TRX file{hint}, which gapscore does not read; convert it to JUnit XML with `trx2junit FILE` (`dotnet tool install -g trx2junit`), or {DOTNET_JUNIT}"
            ));
        }
        b"test-run" => "an NUnit 3 XML file (`<test-run>`)",
        b"test-results" => "an NUnit 2 XML file (`<test-results>`)",
        b"assemblies" | b"assembly" => "an xUnit.net v2 XML file (`<assemblies>`)",
        other => {
            return Some(format!(
                "an XML file whose root element is `<{}>`, not JUnit XML's `<testsuites>` or `<testsuite>`; gapscore does not read it",
                String::from_utf8_lossy(other)
            ));
        }
    };
    Some(format!(
        "{what}, which gapscore does not read; {DOTNET_JUNIT}"
    ))
}

/// Comma-separated values: named `.csv`, or a header line of at least two fields followed by
/// a line with as many commas (and no JSON, XML or TAP shape).
fn is_csv(text: &[u8], file_name: Option<&str>) -> bool {
    if file_name.is_some_and(|n| n.to_ascii_lowercase().ends_with(".csv")) {
        return true;
    }
    let first = text.trim_ascii_start().first().copied();
    if matches!(first, Some(b'{' | b'[' | b'<')) {
        return false;
    }
    let mut lines = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty());
    let commas = |l: &[u8]| l.iter().filter(|&&b| b == b',').count();
    match (lines.next(), lines.next()) {
        (Some(head), Some(row)) => commas(head) >= 1 && commas(head) == commas(row),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn says(bytes: &[u8], name: &str) -> String {
        describe(bytes, Some(name)).unwrap_or_default()
    }

    #[test]
    fn names_what_it_can_and_nothing_else() {
        assert!(says(b"", "a.json").contains("the file is empty"));
        assert!(says(b"\xEF\xBB\xBF", "a.json").contains("the file is empty"));
        assert!(says(b" \n\t\r\n", "a.json").contains("only whitespace (5 bytes)"));
        assert!(says(b"ab\0cd", "a.bin").contains("NUL byte at byte 2"));
        assert!(says(b"ok \x8a\x0d", "a.bin").contains("invalid byte at byte 3"));
        assert_eq!(describe(b"cut \xC3", Some("a.txt")), None);
        assert!(says(b"\x1F\x8B\x08\0", "a.gz").contains("gzip"));
        assert!(says(b"PK\x03\x04", "r.zip").contains("ZIP archive"));
        let trx = b"<?xml version=\"1.0\"?>\n<TestRun id=\"1\" xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">";
        assert!(says(trx, "r.trx").starts_with("a Visual Studio TRX file, "));
        assert!(says(b"<!-- x --><test-run id=\"2\">", "r.xml").contains("NUnit 3"));
        assert!(says(b"<test-results name=\"x\">", "r.xml").contains("NUnit 2"));
        assert!(says(b"<assemblies timestamp=\"x\">", "r.xml").contains("xUnit.net v2"));
        assert!(says(b"<html><body>", "r.html").contains("root element is `<html>`"));
        assert!(says(b"name,status\na,passed\n", "r.txt").starts_with("a CSV file"));
        assert!(says(b"anything", "R.CSV").starts_with("a CSV file"));
        assert_eq!(describe(b"just some words\nand more", Some("x.txt")), None);
        assert_eq!(describe(b"[1, 2]\n[3, 4]", Some("x.json")), None);
        assert_eq!(describe(b"<?xml version=\"1.0\"?>", Some("x.xml")), None);
    }
}
