//! The one text fold of gapscore. Two texts that read the same to a person fold to the same
//! string: the leak scan (spec §4.4) finds a line of sealed test source however it was
//! respaced, recased or disguised, and every name gapscore compares — model families, models,
//! test names — is compared by its fold ([`same_name`]), so `GPT-5` and `gpt-5`, `open\u{200b}ai`
//! and `openai`, or an `openai` written with a Cyrillic `о`, are one name in `score`, `seal` and
//! `check` alike. A name compared any other way (`to_lowercase`, `eq_ignore_ascii_case`) is a
//! second identity rule, and a forged report slips between the two.
//!
//! [`fold`] drops every whitespace character (spaces, tabs, no-break and other Unicode spaces,
//! line breaks) and every invisible format character (zero-width spaces and joiners, word
//! joiners, the byte-order mark, soft hyphens, direction marks); maps fullwidth ASCII and the
//! Cyrillic and Greek letters that look like Latin ones to those Latin letters; and lowercases.
//! It maps one character at a time, so a text containing a line also contains the line's fold
//! after folding: matching folded texts finds everything an exact match finds, and more.
//!
//! ```
//! use gapscore_fold::{fold, same_name};
//!
//! assert!(same_name("GPT-5", "gpt-5"));
//! assert!(same_name("open\u{200b}ai", "OpenAI "));
//! assert!(same_name("\u{43e}penai", "openai")); // Cyrillic о
//! assert!(!same_name("openai", "anthropic"));
//! assert_eq!(fold("assert  Add(1, 2)"), fold("assert add(1,2)"));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// Whether two names (model families, models, test names) are one name: their folds are equal.
/// Every identity comparison in gapscore goes through here.
pub fn same_name(a: &str, b: &str) -> bool {
    folded_chars(a).eq(folded_chars(b))
}

/// The text with what disguises it made visible, for messages: invisible characters,
/// whitespace other than a plain space, and non-ASCII lookalikes of Latin letters are written
/// as `\u{XXXX}` (`open\u{200b}ai`, `\u{43e}penai`); everything else as it is.
pub fn show_disguises(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let disguise = is_invisible(c)
            || (c.is_whitespace() && c != ' ')
            || (!c.is_ascii() && latin_lookalike(c) != c);
        if disguise {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// The characters of [`fold`]`(text)`, lazily (a comparison allocates nothing).
fn folded_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars()
        .filter(|c| !c.is_whitespace() && !is_invisible(*c))
        .flat_map(|c| latin_lookalike(c).to_lowercase())
}

/// The text as matched: see the module documentation.
pub fn fold(text: &str) -> String {
    folded_chars(text).collect()
}

/// Characters that print as nothing: zero-width spaces and joiners, word joiners and invisible
/// operators, the byte-order mark, the soft hyphen, direction marks and embeddings.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
    )
}

/// The Latin letter (or ASCII character) a character is made to look like: fullwidth forms,
/// Cyrillic and Greek lookalikes, dotless i; the character itself otherwise.
fn latin_lookalike(c: char) -> char {
    // Fullwidth ASCII (`ａ`, `（`, `＝`).
    if ('\u{FF01}'..='\u{FF5E}').contains(&c) {
        return char::from_u32(c as u32 - 0xFEE0).unwrap_or(c);
    }
    match c {
        // Cyrillic capitals.
        'А' => 'A',
        'В' => 'B',
        'Е' | 'Ё' => 'E',
        'З' => '3',
        'Ӏ' | 'І' => 'I',
        'Ј' => 'J',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Ѕ' => 'S',
        'Т' => 'T',
        'У' | 'Ү' => 'Y',
        'Х' => 'X',
        'Ԛ' => 'Q',
        'Ԝ' => 'W',
        // Cyrillic small letters.
        'а' => 'a',
        'в' => 'b',
        'е' | 'ё' => 'e',
        'һ' => 'h',
        'і' | 'ӏ' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'м' => 'm',
        'н' => 'h',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'ѕ' => 's',
        'т' => 't',
        'у' | 'ү' => 'y',
        'х' => 'x',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'ь' => 'b',
        // Greek capitals.
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        // Greek small letters.
        'α' => 'a',
        'γ' => 'y',
        'ε' => 'e',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        // Latin lookalikes of Latin letters.
        'ı' => 'i',
        'ȷ' => 'j',
        'ℓ' => 'l',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::{fold, same_name, show_disguises};

    #[test]
    fn names_compare_by_their_fold() {
        for (a, b) in [
            ("GPT-5", "gpt-5"),
            ("open\u{200b}ai", "openai"),
            ("\u{43e}pen\u{430}i", "OpenAI"),
            (" Anthropic\u{feff}", "anthropic"),
            ("ｇｏｏｇｌｅ", "google"),
        ] {
            assert!(same_name(a, b), "{a:?} vs {b:?}");
            assert_eq!(fold(a), fold(b), "{a:?} vs {b:?}");
        }
        for (a, b) in [
            ("openai", "anthropic"),
            ("gpt-5", "gpt-4"),
            ("gpt-5", "gpt-5o"),
        ] {
            assert!(!same_name(a, b), "{a:?} vs {b:?}");
        }
        assert_eq!(show_disguises("open\u{200b}ai"), "open\\u{200b}ai");
        assert_eq!(show_disguises("\u{43e}penai"), "\\u{43e}penai");
        assert_eq!(show_disguises("Open AI 智谱"), "Open AI 智谱");
    }

    #[test]
    fn spacing_case_and_invisible_characters_fold_away() {
        let line = "assert add(1, 2) == 2";
        for disguised in [
            "ASSERT ADD(1, 2) == 2",
            "assert\tadd(1,\u{a0}2)  ==   2",
            "assert add(1,2)==2",
            "as\u{200b}sert a\u{200d}dd(1, 2) =\u{feff}= 2",
            "assert\nadd(1, 2)\n== 2",
            "\u{3000}assert add（1, 2） == 2",
        ] {
            assert_eq!(fold(disguised), fold(line), "{disguised:?}");
        }
    }

    #[test]
    fn cyrillic_and_greek_lookalikes_read_as_latin() {
        // Cyrillic а, с, е, о, р; Greek ο, ε, Α.
        assert_eq!(
            fold("аssеrt grеet(\"Wоrld\")"),
            fold("assert greet(\"World\")")
        );
        assert_eq!(fold("ΑSSΕRT"), fold("assert"));
        assert_eq!(
            fold("еxpect(ѕum(1)).toBe(3)"),
            fold("expect(sum(1)).toBe(3)")
        );
        // Other letters stay themselves.
        assert_eq!(fold("名前 ünï"), "名前ünï");
    }
}
