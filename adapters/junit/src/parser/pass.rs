//! One pass of the reader over a stream: quick-xml's events handed to [`Reading`]. A pass can
//! stop at the end of the first top-level suite or at a byte offset and go on later, which is
//! what lets [`super::split`] read a large file in two halves; read to the end, it is the
//! whole sequential reader.

use std::sync::atomic::{AtomicBool, Ordering};

use gapscore_adapter_sdk::{AdapterError, EventSink, InputError, Location, Problem, ProblemKind};
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use quick_xml::reader::Reader;

use super::{Ending, Reading};

/// Where [`Pass::run`] stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Until {
    /// The end of the document.
    End,
    /// After the first `</testsuite>` that closes a child of the root.
    FirstSuiteEnd,
    /// Before the first event that starts at or after this stream offset.
    Offset(u64),
}

/// Why [`Pass::run`] returned without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// The document was read to its end.
    Done,
    /// Stopped where [`Until`] said, or because the stop flag was raised.
    Paused,
}

pub(super) struct Pass<'s, R, K: EventSink + ?Sized = dyn EventSink> {
    reader: Reader<R>,
    r: Reading<'s, K>,
    buf: Vec<u8>,
    depth: usize,
    root_seen: bool,
    /// Added (wrapping) to the XML reader's positions to give offsets in the caller's stream:
    /// 0, except for the second half of a split read, whose reader starts at a made-up root
    /// tag in front of the split offset.
    base: u64,
    /// The root element's name as written, for the second half's made-up root tag.
    root_name: Vec<u8>,
    stop: Option<&'s AtomicBool>,
}

impl<'s, R: std::io::BufRead, K: EventSink + ?Sized> Pass<'s, R, K> {
    pub(super) fn new(source: R, r: Reading<'s, K>, base: u64) -> Self {
        let mut reader = Reader::from_reader(source);
        reader.config_mut().check_end_names = true;
        Pass {
            reader,
            r,
            buf: Vec::new(),
            depth: 0,
            root_seen: false,
            base,
            root_name: Vec::new(),
            stop: None,
        }
    }

    /// A pass that returns [`Step::Paused`] as soon as `stop` is raised.
    pub(super) fn with_stop(mut self, stop: &'s AtomicBool) -> Self {
        self.stop = Some(stop);
        self
    }

    /// The offset in the caller's stream of the next event.
    pub(super) fn offset(&self) -> u64 {
        self.reader.buffer_position().wrapping_add(self.base)
    }

    /// Open elements, the root included.
    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    pub(super) fn root_name(&self) -> &[u8] {
        &self.root_name
    }

    /// The sink the events went to.
    pub(super) fn sink(&self) -> &K {
        self.r.sink
    }

    pub(super) fn reading(&self) -> &Reading<'s, K> {
        &self.r
    }

    /// Reads the made-up root start tag that opens a second half, without handing it to the
    /// reader (the root's attributes came with the carried state). False if it is not there.
    pub(super) fn skip_root(&mut self) -> bool {
        let ok = matches!(
            self.reader.read_event_into(&mut self.buf),
            Ok(Event::Start(_))
        );
        self.buf.clear();
        if ok {
            self.depth = 1;
            self.root_seen = true;
        }
        ok
    }

    /// Delivers what is held back; hands back what the end needs and the sink.
    pub(super) fn end(self) -> (Ending, &'s mut K) {
        self.r.into_ending()
    }

    pub(super) fn run(&mut self, until: Until) -> Result<Step, AdapterError> {
        let base = self.base;
        let at = |offset: u64, message: String| -> AdapterError {
            AdapterError::Input(InputError::Syntax {
                location: Location::Offset(offset.wrapping_add(base)),
                message,
            })
        };
        let reader = &mut self.reader;
        let r = &mut self.r;
        let buf = &mut self.buf;
        loop {
            // Errors of the XML reader point at `error_position`; errors found in an event it
            // read (an undefined entity, a wrong root) point at the start of that event.
            let before = reader.buffer_position();
            if let Until::Offset(o) = until
                && before.wrapping_add(base) >= o
            {
                return Ok(Step::Paused);
            }
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Ok(Step::Paused);
            }
            let event = match reader.read_event_into(buf) {
                Ok(e) => e,
                Err(e) => {
                    let at_end = reader.get_mut().fill_buf().map_or(true, |b| b.is_empty());
                    // A document cut off mid-element: keep what was complete, flag the cut.
                    if self.root_seen && at_end {
                        r.end_open_suites();
                        r.sink.problem(Problem::new(
                            ProblemKind::Truncated,
                            format!(
                                "file ends at byte {} inside an element ({e})",
                                reader.buffer_position().wrapping_add(base)
                            ),
                        ));
                        return Ok(Step::Done);
                    }
                    if !self.root_seen && at_end && reader.buffer_position() == 0 {
                        return Err(AdapterError::Input(InputError::Empty(
                            "empty file: expected a JUnit XML document".into(),
                        )));
                    }
                    // quick-xml leaves `error_position` at 0 for some errors (invalid UTF-8 in
                    // a start tag): then the place is the start of the event being read.
                    return Err(at(reader.error_position().max(before), e.to_string()));
                }
            };
            let root_check = |name: &str| -> Result<(), AdapterError> {
                if name.contains('\0') {
                    // `<\0?\0x\0m\0l\0`: the bytes are UTF-16, and there is no byte-order mark
                    // to say so; printing the name would put NUL bytes on the terminal.
                    return Err(at(
                        before,
                        "NUL bytes in the first element's name: UTF-16 without a byte-order mark? \
                         (JUnit files are read as UTF-8 unless a UTF-16 byte-order mark says otherwise)"
                            .into(),
                    ));
                }
                if !matches!(name, "testsuites" | "testsuite") {
                    return Err(at(
                        before,
                        format!(
                            "root element is <{}>, expected <testsuites> or <testsuite>",
                            name.escape_debug()
                        ),
                    ));
                }
                Ok(())
            };
            let mut first_suite_closed = false;
            match event {
                Event::Start(e) => {
                    if !self.root_seen {
                        root_check(e.local_name().as_ref())?;
                        self.root_name = e.name().as_ref().as_bytes().to_vec();
                    }
                    self.root_seen = true;
                    self.depth += 1;
                    r.start(&e, false)
                        .map_err(|err| at(before, err.to_string()))?;
                }
                Event::Empty(e) => {
                    if !self.root_seen {
                        root_check(e.local_name().as_ref())?;
                    }
                    self.root_seen = true;
                    r.start(&e, true)
                        .map_err(|err| at(before, err.to_string()))?;
                }
                Event::End(e) => {
                    self.depth = self.depth.saturating_sub(1);
                    let name = e.local_name();
                    first_suite_closed = self.depth == 1 && name.as_ref() == "testsuite";
                    r.end(name.as_ref());
                }
                // Whitespace between elements (one per testcase in most files) is not decoded.
                Event::Text(_) if self.root_seen && !r.wants_text() => {}
                Event::Text(t) => {
                    let s = t.xml_content(XmlVersion::Implicit1_0);
                    if !self.root_seen && !s.trim().is_empty() {
                        return Err(at(before, "text before the root element".into()));
                    }
                    r.text(&s);
                }
                Event::CData(t) => r.text(&t.xml_content(XmlVersion::Implicit1_0)),
                Event::GeneralRef(e) => {
                    let resolved = match e.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        Ok(None) => match e.as_ref() {
                            "lt" => "<".into(),
                            "gt" => ">".into(),
                            "amp" => "&".into(),
                            "apos" => "'".into(),
                            "quot" => "\"".into(),
                            other => {
                                return Err(at(
                                    before,
                                    format!(
                                        "undefined entity `&{other};` (entities declared in a DTD are never expanded)"
                                    ),
                                ));
                            }
                        },
                        Err(err) => return Err(at(before, err.to_string())),
                    };
                    r.text(&resolved);
                }
                Event::Eof => {
                    if !self.root_seen {
                        return Err(AdapterError::Input(if reader.buffer_position() == 0 {
                            InputError::Empty("empty file: expected a JUnit XML document".into())
                        } else {
                            // The place is the end: everything before it was read and was not
                            // a root.
                            InputError::Syntax {
                                location: Location::Offset(
                                    reader.buffer_position().wrapping_add(base),
                                ),
                                message:
                                    "end of file before any <testsuites> or <testsuite> element"
                                        .into(),
                            }
                        }));
                    }
                    if self.depth > 0 {
                        r.end_open_suites();
                        r.sink.problem(Problem::new(
                            ProblemKind::Truncated,
                            format!(
                                "file ends at byte {} with {} element{} still open",
                                reader.buffer_position().wrapping_add(base),
                                self.depth,
                                if self.depth == 1 { "" } else { "s" }
                            ),
                        ));
                    }
                    buf.clear();
                    return Ok(Step::Done);
                }
                Event::Comment(c) if self.root_seen => {
                    r.comment(c.as_ref());
                }
                // Declarations, processing instructions, DTDs: nothing to read, and
                // DTD entity definitions are never expanded.
                _ => {}
            }
            buf.clear();
            if first_suite_closed && until == Until::FirstSuiteEnd {
                return Ok(Step::Paused);
            }
        }
    }
}
