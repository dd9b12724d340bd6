//! `json::stream` against serde_json and the in-memory duplicate-key scan: the same syntax
//! errors at the same places, the same end of a cut document, the same duplicate keys, on
//! every way a reader may split the input; and what a reader is handed.

use std::io::{BufRead, Read};

use gapscore_adapter_sdk::InputError;
use gapscore_adapter_sdk::encoding::{skip_bom, strip_bom};
use gapscore_adapter_sdk::json::find_duplicate_key;
use gapscore_adapter_sdk::json::stream::{
    Outcome, Position, StreamError, Value, Visitor, Want, for_each_element, locate, visit,
};
use proptest::prelude::*;

/// A reader that hands over at most `step` bytes per read (cycling through `steps`), as a
/// pipe or a slow file may.
struct Chunky<'a> {
    data: &'a [u8],
    steps: Vec<usize>,
    turn: usize,
}

impl<'a> Chunky<'a> {
    fn new(data: &'a [u8], steps: &[usize]) -> Self {
        Chunky {
            data,
            steps: steps.iter().map(|s| (*s).max(1)).collect(),
            turn: 0,
        }
    }
}

impl Read for Chunky<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.fill_buf()?.len().min(out.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Chunky<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        let step = self.steps[self.turn % self.steps.len()];
        Ok(&self.data[..step.min(self.data.len())])
    }
    fn consume(&mut self, n: usize) {
        self.data = &self.data[n..];
        self.turn += 1;
    }
}

/// Checks a whole document, wanting nothing of it.
fn check(doc: &[u8], steps: &[usize]) -> Result<Outcome, StreamError> {
    struct Nothing;
    impl Visitor for Nothing {
        fn member(&mut self, _: &[String], _: &str) -> Want {
            Want::Skip
        }
        fn element(&mut self, _: &[String], _: Value<'_>) -> Result<(), StreamError> {
            Ok(())
        }
    }
    visit(&mut Chunky::new(doc, steps), Want::Skip, &mut Nothing)
}

/// serde_json's verdict on a whole text, read as a reader reads it (typed, not skipped: the
/// two differ in a few messages): `None` when it is JSON, else its message and place.
fn serde_says(doc: &str) -> Option<(String, usize, usize, bool)> {
    let e = serde_json::from_str::<serde_json::Value>(doc).err()?;
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let msg = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    Some((msg, e.line(), e.column(), e.is_eof()))
}

/// The stream's verdict in the same terms.
fn stream_says(doc: &str, steps: &[usize]) -> Option<(String, usize, usize, bool)> {
    match check(doc.as_bytes(), steps) {
        Ok(Outcome::Complete) => None,
        Ok(Outcome::Truncated { end }) => Some((String::new(), end.line, end.column, true)),
        Ok(_) => unreachable!("two outcomes"),
        Err(StreamError::Syntax { at, message }) => {
            Some((message.to_owned(), at.line, at.column, false))
        }
        Err(StreamError::Empty) => Some((String::new(), 0, 0, true)),
        Err(e) => Some((e.to_string(), 0, 0, false)),
    }
}

#[test]
fn syntax_errors_are_serde_jsons_at_serde_jsons_places() {
    for doc in [
        "{\"a\":1,}",
        "{\"a\":[1,2,]}",
        "{\"a\":1}\n{\"b\":2}",
        "{\"a\" 1}",
        "{\"a\":1 \"b\":2}",
        "[1 2]",
        "{1:2}",
        "{\"a\":tru}",
        "{\"a\":nul}",
        "{\"a\":-}",
        "{\"a\":01}",
        "{\"a\":1.}",
        "{\"a\":1e}",
        "{\"a\":1.5e+3, \"b\": -0.0}",
        "{\"a\":\"x\\q\"}",
        "{\"a\":\"x\\u12G4\"}",
        "{\"a\":\"line\nbreak\"}",
        "{\"a\":]}",
        "[}",
        "  \n {\"deep\": [[[{\"x\": [true, false, null]}]]]}  \n",
    ] {
        let serde = serde_says(doc);
        let ours = stream_says(doc, &[usize::MAX]);
        assert_eq!(ours, serde, "{doc:?}");
        assert_eq!(
            stream_says(doc, &[1, 2, 3]),
            serde,
            "{doc:?} in small reads"
        );
    }
}

#[test]
fn a_cut_document_ends_where_serde_json_says() {
    let doc = "{\n  \"a\": [1, {\"b\": \"t\\u00e9st é\"}, 22.5e1],\n  \"c\": null\n}\n";
    for cut in 1..doc.len() {
        let Some(prefix) = doc.get(..cut) else {
            continue; // Inside a character: serde_json cannot take it as a `str`.
        };
        if prefix.trim().is_empty() {
            continue;
        }
        let serde = serde_says(prefix);
        let ours = stream_says(prefix, &[3, 1]);
        match (&serde, &ours) {
            (Some((_, l, c, true)), Some((_, l2, c2, true))) => {
                assert_eq!((l, c), (l2, c2), "{prefix:?}");
            }
            // A cut after a number's `-`, `.` or `e`: serde_json's skip says `invalid number`
            // at the end, the stream says the document was cut there, as for any other cut.
            (Some((m, l, c, false)), Some((_, l2, c2, true))) if m == "invalid number" => {
                assert_eq!((l, c), (l2, c2), "{prefix:?}");
            }
            _ => assert_eq!(ours, serde, "{prefix:?}"),
        }
    }
}

#[test]
fn elements_are_handed_over_one_at_a_time_with_their_places() {
    let doc = b"{\"n\": 2,\n \"r\": {\"tests\": [\n  {\"t\": \"a\"},\n  {\"t\": \"b\"}\n ]}}";
    for steps in [&[usize::MAX][..], &[1], &[2, 5]] {
        let mut seen = Vec::new();
        let outcome = for_each_element(&mut Chunky::new(doc, steps), &["r", "tests"], |e| {
            seen.push((e.text.to_owned(), e.at, e.complete));
            Ok(())
        })
        .unwrap();
        assert_eq!(outcome, Outcome::Complete);
        let at = |offset, line, column| Position {
            offset,
            line,
            column,
        };
        assert_eq!(
            seen,
            [
                ("{\"t\": \"a\"}".to_owned(), at(29, 3, 3), true),
                ("{\"t\": \"b\"}".to_owned(), at(43, 4, 3), true),
            ]
        );
    }
    // A root array, and an array that is not on the path.
    let mut n = 0;
    for_each_element(&mut &b"[1, [2], {\"x\": [3]}]"[..], &[], |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 3);
    let mut none = 0;
    for_each_element(&mut &b"{\"other\": [1, 2]}"[..], &["tests"], |_| {
        none += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(none, 0);
}

#[test]
fn a_cut_element_is_offered_after_every_complete_one() {
    let doc = "{\"tests\": [{\"t\": \"a\"}, {\"t\": \"é";
    let cut = &doc.as_bytes()[..doc.len() - 1]; // Inside the `é`.
    let mut seen = Vec::new();
    let outcome = for_each_element(&mut &cut[..], &["tests"], |e| {
        seen.push((e.text.to_owned(), e.complete));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        seen,
        [
            ("{\"t\": \"a\"}".to_owned(), true),
            ("{\"t\": \"".to_owned(), false)
        ]
    );
    let Outcome::Truncated { end } = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!((end.offset, end.line, end.column), (31, 1, 31));
}

#[test]
fn a_typed_parse_error_in_an_element_is_placed_in_the_file() {
    let doc = "{\"tests\": [\n  {\"t\": 1},\n  {\"t\": \"x\"}]}";
    let whole = serde_json::from_str::<Tests>(doc).unwrap_err();
    let mut err = None;
    for_each_element(&mut doc.as_bytes(), &["tests"], |e| {
        if let Err(x) = serde_json::from_str::<T>(e.text) {
            err.get_or_insert(e.json_error(&x));
        }
        Ok(())
    })
    .unwrap();
    let place = |e: &InputError| e.location().map(ToString::to_string);
    let err = err.unwrap();
    assert_eq!(place(&err).as_deref(), Some("2:9"));
    assert_eq!(
        place(&err),
        Some(format!("{}:{}", whole.line(), whole.column()))
    );

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)] // Parsed for its errors.
    struct Tests {
        tests: Vec<T>,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct T {
        t: String,
    }
}

#[test]
fn invalid_utf8_is_refused_at_its_byte_wherever_the_reads_split() {
    let mut doc = b"{\"a\": \"ok \xC3\xA9\", \"b\": \"bad ".to_vec();
    doc.extend_from_slice(b"\xC3(\"}");
    for steps in [&[usize::MAX][..], &[1], &[2], &[3, 7]] {
        match check(&doc, steps) {
            Err(StreamError::InvalidUtf8 { at }) => assert_eq!(at.offset, 25, "{steps:?}"),
            other => panic!("{other:?}"),
        }
    }
    let e = check(&doc, &[usize::MAX])
        .unwrap_err()
        .to_input_error()
        .unwrap();
    // In memory, the offset is placed as the host places it: the column in characters.
    assert_eq!(
        locate(&doc, e).to_string(),
        "1:25: invalid UTF-8 at byte 25"
    );
}

#[test]
fn a_byte_order_mark_is_skipped_and_counted() {
    let doc = b"\xEF\xBB\xBF{\"a\":1,\"a\":2}";
    match check(doc, &[1]) {
        Err(StreamError::DuplicateKey { key, at, first }) => {
            assert_eq!((key.as_str(), at.offset, first.offset), ("a", 10, 4));
            assert_eq!((at.column, first.column), (11, 5));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(check(b" \n ", &[1]), Err(StreamError::Empty)));
    assert!(matches!(
        check(b"\xEF\xBB", &[1]),
        Err(StreamError::InvalidUtf8 { .. })
    ));
}

#[test]
fn the_bom_helpers() {
    assert_eq!(strip_bom(b"\xEF\xBB\xBF{}"), b"{}");
    assert_eq!(strip_bom(b"\xEF\xBB{}"), b"\xEF\xBB{}");
    for steps in [&[usize::MAX][..], &[1], &[2]] {
        let mut r = Chunky::new(b"\xEF\xBB\xBF{}", steps);
        assert!(skip_bom(&mut r).unwrap());
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"{}");
        let mut r = Chunky::new(b"{}", steps);
        assert!(!skip_bom(&mut r).unwrap());
        assert_eq!(r.fill_buf().unwrap()[0], b'{');
        // Part of a mark, then something else: refused, never silently dropped.
        assert!(skip_bom(&mut Chunky::new(b"\xEF\xBB{", &[1])).is_err());
    }
    assert!(!skip_bom(&mut &b""[..]).unwrap());
}

#[test]
fn the_error_for_a_duplicate_key_is_the_in_memory_scans() {
    let text = "{\n  \"status\": \"failed\",\n  \"status\": \"passed\"\n}";
    let e = check(text.as_bytes(), &[usize::MAX]).unwrap_err();
    let memory = gapscore_adapter_sdk::json::check_unique_keys(text.as_bytes()).unwrap_err();
    assert_eq!(e.to_input_error(), Some(memory));
}

/// A value only checked, or handed over, is not held to serde_json's 127 levels: a reader's
/// own parse of it decides (Jest's reader reads a `failureDetails` 600 levels deep, a golden
/// fixture; the CLI reads 100,000). The stream's limit is a million levels, beyond it the value
/// is refused at the bracket.
#[test]
fn nesting_inside_a_skipped_value_is_not_limited_to_serde_jsons_127() {
    let deep = format!("{{\"a\": {}1{}}}", "[{\"k\":".repeat(500), "}]".repeat(500));
    assert_eq!(stream_says(&deep, &[7]), None);
    let mut seen = 0;
    for_each_element(&mut deep.as_bytes(), &["a"], |e| {
        seen += 1;
        assert!(e.text.len() > 3000);
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, 1);
    let too_deep = format!("{}{}", "[".repeat(1 << 20 | 1), "]".repeat(1 << 20 | 1));
    assert_eq!(
        stream_says(&too_deep, &[1 << 16]),
        Some(("recursion limit exceeded".to_owned(), 1, 1 << 20 | 1, false))
    );
}

/// Random JSON texts with keys drawn from a few spellings (some escaped) so that duplicates,
/// and near misses, are common.
fn doc() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("a"),
        Just("b"),
        Just("\\u0061"),
        Just("é"),
        Just("\\u00e9"),
        Just("a\\\""),
        Just("\\ud83d\\ude00"),
        Just("😀"),
    ];
    let leaf = prop_oneof![
        Just("1".to_owned()),
        Just("-2.5e3".to_owned()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("\"x\\\"y\"".to_owned()),
        Just("\"{\\\"a\\\":1}\"".to_owned()),
    ];
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|v| {
                let members: Vec<String> = v
                    .into_iter()
                    .map(|(k, x)| format!("\"{k}\":\n {x}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The streaming detector finds what `find_duplicate_key` finds (key, place, first
    /// place), however the reads split the input; and refuses nothing else.
    #[test]
    fn streaming_duplicate_keys_agree_with_the_in_memory_scan(
        d in doc(),
        steps in prop::collection::vec(1usize..9, 1..4),
    ) {
        let memory = find_duplicate_key(d.as_bytes());
        match (check(d.as_bytes(), &steps), memory) {
            (Err(StreamError::DuplicateKey { key, at, first }), Some(m)) => {
                prop_assert_eq!(key, m.key);
                prop_assert_eq!(at.offset, m.offset as u64);
                prop_assert_eq!(first.offset, m.first_offset as u64);
            }
            (Ok(Outcome::Complete), None) => {}
            (other, m) => prop_assert!(false, "stream {:?}, memory {:?}", other, m),
        }
    }

    /// Every prefix of a document is either a duplicate found before the cut, or a cut.
    #[test]
    fn a_prefix_is_a_cut_or_an_earlier_duplicate(d in doc(), cut in 0.0f64..1.0) {
        let n = (d.len() as f64 * cut) as usize;
        let prefix = &d.as_bytes()[..n];
        if prefix.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        match (check(prefix, &[3]), find_duplicate_key(prefix)) {
            (Err(StreamError::DuplicateKey { at, .. }), Some(m)) => {
                prop_assert_eq!(at.offset, m.offset as u64);
            }
            (Ok(Outcome::Truncated { .. }), None) => {}
            // A number cut short is still a number.
            (Ok(Outcome::Complete), None)
                if serde_json::from_slice::<serde_json::Value>(prefix).is_ok() => {}
            // A cut inside a character of a key.
            (Err(StreamError::InvalidUtf8 { .. }), _) => {}
            (other, m) => prop_assert!(false, "stream {:?}, memory {:?}", other, m),
        }
    }
}

/// `array_end` is told each array of elements that closes, at its `]`, where serde_json
/// places an error a sequence visitor raises after the last element.
#[test]
fn array_end_is_placed_on_the_closing_bracket() {
    struct Ends(Vec<(Vec<String>, usize, usize, u64)>);
    impl Visitor for Ends {
        fn member(&mut self, _: &[String], key: &str) -> Want {
            if key == "tests" {
                Want::Elements
            } else {
                Want::Skip
            }
        }
        fn element(&mut self, _: &[String], _: Value<'_>) -> Result<(), StreamError> {
            Ok(())
        }
        fn array_end(&mut self, path: &[String], at: Position) -> Result<(), StreamError> {
            self.0.push((path.to_vec(), at.line, at.column, at.offset));
            Ok(())
        }
    }
    let doc = b"{\"other\": [1],\n \"tests\": [{\"a\": 1},\n  {\"b\": [2]}\n ]}";
    let mut ends = Ends(Vec::new());
    visit(&mut &doc[..], Want::Descend, &mut ends).unwrap();
    let bracket = doc.iter().rposition(|&b| b == b']').unwrap() as u64;
    assert_eq!(ends.0, [(vec!["tests".to_owned()], 4, 2, bracket)]);
    // serde_json agrees: a visitor's error after the last element is placed there.
    let e = serde_json::from_slice::<serde_json::Value>(&doc[..=bracket as usize]).unwrap_err();
    assert_eq!((e.line(), e.column()), (4, 2));
}

/// A reader of `{"tests": [...]}` that parses each element with serde_json, with or without
/// the quick pass ([`Visitor::parses_elements`]); what it kept: each element parsed (text and
/// place), or `cut` for the one the input ended in.
struct Parses {
    quick: bool,
    kept: Vec<String>,
}

impl Visitor for Parses {
    fn member(&mut self, path: &[String], key: &str) -> Want {
        match (path.len(), key) {
            (0, "tests") => Want::Elements,
            (0, "nested") => Want::Descend,
            (1, "tests") => Want::Elements,
            _ => Want::Skip,
        }
    }
    fn element(&mut self, _: &[String], e: Value<'_>) -> Result<(), StreamError> {
        match serde_json::from_str::<serde_json::Value>(e.text) {
            Ok(_) => self.kept.push(format!("{} at {:?}", e.text, e.at)),
            Err(err) if err.is_eof() && !e.complete => self.kept.push("cut".to_owned()),
            Err(err) => return Err(e.json_error(&err).into()),
        }
        Ok(())
    }
    fn parses_elements(&self) -> bool {
        self.quick
    }
}

/// What a reader sees of `doc`, with the quick pass or not.
fn parsed_by(doc: &[u8], steps: &[usize], quick: bool) -> String {
    let mut v = Parses {
        quick,
        kept: Vec::new(),
    };
    let r = visit(&mut Chunky::new(doc, steps), Want::Descend, &mut v);
    let r = match r {
        Err(e) => format!("{:?}", e.to_input_error().ok_or(e.to_string())),
        Ok(o) => format!("{o:?}"),
    };
    format!("{:?} then {r}", v.kept)
}

/// Elements that are not JSON, each a different way, and some that are.
const ELEMENTS: [&str; 22] = [
    "{\"a\":1,}",
    "{\"a\":[1,2,]}",
    "{\"a\" 1}",
    "{\"a\":1 \"b\":2}",
    "[1 2]",
    "{1:2}",
    "{\"a\":tru}",
    "{\"a\":-}",
    "{\"a\":01}",
    "{\"a\":1.}",
    "{\"a\":\"x\\q\"}",
    "{\"a\":\"x\\u12G4\"}",
    "{\"a\":\"line\nbreak\"}",
    "{\"a\":]}",
    "[}",
    "{\"a\":1,\"a\":2}",
    "{\"a\":{\"x\":[1,}, \"a\":2}",
    "{\"\\u0061\":1,\"a\":[}",
    "{\"k\\u12\":1}",
    "{\n  \"deep\": [[[{\"x\": [true, false, null]}]]],\n  \"s\": \"t\\u00e9st é \\\"q\\\\\"\n}",
    "[{\"a\":1},\n {\"a\":\"]\"}]",
    "{\"a\":\"\\ud800\"}",
];

/// The quick pass hands a reader the same elements and ends with the same result (the same
/// error at the same place) as checking each element in full first, element by element, cut
/// anywhere, however the reads split the input.
#[test]
fn the_quick_pass_agrees_with_the_full_check() {
    for (i, element) in ELEMENTS.iter().enumerate() {
        let doc = format!(
            "{{\"tests\": [{{\"ok\": 1}},\n  {element} ,\n {{\"after\": [2]}}], \"nested\": {{\"tests\": [{element}]}}, \"x\": {}}}",
            if i % 2 == 0 { "1" } else { "[}" }
        );
        for cut in (1..=doc.len()).filter(|&c| doc.is_char_boundary(c)) {
            let d = &doc.as_bytes()[..cut];
            // Whole reads and small ones in turn (a string or key cut by a refill).
            let steps = [&[usize::MAX][..], &[1, 2, 5]][cut % 2];
            assert_eq!(
                parsed_by(d, steps, true),
                parsed_by(d, steps, false),
                "{:?} in reads of {steps:?}",
                &doc[..cut]
            );
        }
    }
    // Invalid UTF-8 inside an element, and after it.
    for doc in [
        &b"{\"tests\": [{\"a\": \"\xC3\x28\"}]}"[..],
        b"{\"tests\": [{\"a\": 1}, \xFF]}",
        b"{\"tests\": [{\"\xE9\": 1}]}",
    ] {
        assert_eq!(parsed_by(doc, &[3], true), parsed_by(doc, &[3], false));
    }
    // Objects of more keys than the quick pass compares, with a key given twice or not.
    let keys = |n: usize| (0..n).map(|k| format!("\"k{k}\": {k}")).collect::<Vec<_>>();
    let mut twice = keys(40);
    twice.push("\"k3\": 0".to_owned());
    for members in [keys(40), twice] {
        let doc = format!("{{\"tests\": [{{{}}}, {{}}]}}", members.join(", "));
        let (quick, full) = (
            parsed_by(doc.as_bytes(), &[7], true),
            parsed_by(doc.as_bytes(), &[7], false),
        );
        assert_eq!(quick, full);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The same on random documents whose objects often give a key twice.
    #[test]
    fn the_quick_pass_agrees_with_the_full_check_on_random_elements(
        a in doc(),
        b in doc(),
        cut in 0.0f64..1.0,
        steps in prop::collection::vec(1usize..9, 1..4),
    ) {
        let d = format!("{{\"tests\": [{a},\n{b}], \"after\": {a}}}");
        let n = (d.len() as f64 * cut) as usize;
        for text in [d.as_bytes(), &d.as_bytes()[..n]] {
            prop_assert_eq!(parsed_by(text, &steps, true), parsed_by(text, &steps, false));
        }
    }
}
