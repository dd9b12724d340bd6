//! The one text fold of gapscore. Two texts that read the same to a person fold to the same
//! string: the leak scan (spec §4.4) finds a line of sealed test source however it was
//! respaced, recased or disguised, and every name gapscore compares — model families, models,
//! test names — is compared by its fold ([`same_name`]), so `GPT-5` and `gpt-5`, `open\u{200b}ai`
//! and `openai`, or an `openai` written with a Cyrillic `о`, are one name in `score`, `seal` and
//! `check` alike. A name compared any other way (`to_lowercase`, `eq_ignore_ascii_case`) is a
//! second identity rule, and a forged report slips between the two.
//!
//! [`fold`] drops every whitespace character (spaces, tabs, no-break and other Unicode spaces,
//! line breaks), every control and format character and every other default-ignorable code
//! point (zero-width spaces and joiners, word joiners, the byte-order mark, soft hyphens,
//! direction marks, NUL and DEL, tags U+E0000–E007F, variation selectors and their supplement
//! U+E0100–E01EF); maps every compatibility form of a letter or digit to it (fullwidth, the
//! mathematical alphabets `𝗈𝗉𝖾𝗇𝖺𝗂` and `𝚘𝚙𝚎𝚗𝚊𝚒`, circled `ⓞ`, squared, superscripts) and the
//! letters that look like Latin ones (Cyrillic, Greek, Armenian `օ`, Lisu, IPA `ɑ`, small
//! capitals `ᴏ`) to those Latin letters; and lowercases. Names ([`same_name`], [`name_fold`])
//! also drop punctuation, symbols and separators: `Open-AI`, `open_ai` and `open.ai` are
//! `openai`. The leak scan keeps them (`add(1, 2)` is not `add12`).
//! It maps one character at a time, so a text containing a line also contains the line's fold
//! after folding: matching folded texts finds everything an exact match finds, and more.
//!
//! ```
//! use gapscore_fold::{fold, same_name};
//!
//! assert!(same_name("GPT-5", "gpt-5"));
//! assert!(same_name("open\u{200b}ai", "OpenAI "));
//! assert!(same_name("\u{43e}penai", "openai")); // Cyrillic о
//! assert!(same_name("Open-AI", "open.ai"));
//! assert!(same_name("\u{1d5c8}\u{1d5c9}\u{1d5be}\u{1d5c7}\u{1d5ba}\u{1d5c2}", "openai")); // 𝗈𝗉𝖾𝗇𝖺𝗂
//! assert!(!same_name("openai", "anthropic"));
//! assert_eq!(fold("assert  Add(1, 2)"), fold("assert add(1,2)"));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod nfkc_single;

/// Whether two names (model families, models, test names) are one name: their name folds
/// ([`name_fold`]) are equal. Every identity comparison in gapscore goes through here.
pub fn same_name(a: &str, b: &str) -> bool {
    name_chars(a).eq(name_chars(b))
}

/// A name as [`same_name`] compares it: its [`fold`] without punctuation, symbols and
/// separators (`Open-AI`, `open_ai`, `open.ai` and `openai` are one family). Sort or key
/// names by this, never by [`fold`], or names that are one name can end up apart.
pub fn name_fold(text: &str) -> String {
    name_chars(text).collect()
}

/// The characters of [`name_fold`]`(text)`, lazily.
fn name_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    folded_chars(text).filter(|c| c.is_alphanumeric())
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

/// Characters that print as nothing: every control character (General_Category Cc: NUL,
/// DEL, C1 controls), every format character (Cf: zero-width spaces and joiners, word joiners
/// and invisible operators, the byte-order mark, the soft hyphen, direction marks and
/// embeddings, interlinear annotation, the Arabic and Syriac number signs, the Egyptian
/// hieroglyph and musical format controls, tags) and the other default-ignorable code points
/// (variation selectors and their supplement, Hangul fillers, the whole U+E0000 plane-14
/// block of tags and reserved ignorables).
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{0600}'..='\u{0605}'
                | '\u{061C}'
                | '\u{06DD}'
                | '\u{070F}'
                | '\u{0890}'..='\u{0891}'
                | '\u{08E2}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{110BD}'
                | '\u{110CD}'
                | '\u{13430}'..='\u{1343F}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// The letter or digit a compatibility form stands for (what NFKC maps it to, for the forms a
/// name can be disguised with): fullwidth ASCII, the Mathematical Alphanumeric Symbols (bold,
/// italic, sans-serif, monospace, double-struck... Latin, Greek and digits), letterlike
/// symbols, circled, parenthesized, squared and negative enclosed letters and digits, regional
/// indicators, superscript and subscript digits. The character itself otherwise.
fn compatibility_base(c: char) -> char {
    let cp = u32::from(c);
    let offset = |base: u32, first: char| char::from_u32(u32::from(first) + cp - base);
    let mapped = match cp {
        // Fullwidth ASCII (`ａ`, `（`, `＝`).
        0xFF01..=0xFF5E => char::from_u32(cp - 0xFEE0),
        // Mathematical Latin letters: 13 styles of A–Z a–z (the reserved holes are letterlike
        // symbols, mapped below).
        0x1D400..=0x1D6A3 => {
            let i = (cp - 0x1D400) % 52;
            char::from_u32(if i < 26 { 0x41 + i } else { 0x61 + i - 26 })
        }
        0x1D6A4 => Some('i'),
        0x1D6A5 => Some('j'),
        // Mathematical Greek: 5 styles of 58 (capitals, nabla, small letters, partial
        // differential, six symbol variants); mapped to Greek, then to the Latin lookalike.
        0x1D6A8..=0x1D7C9 => {
            let i = (cp - 0x1D6A8) % 58;
            match i {
                17 => Some('Θ'),
                0..=24 => char::from_u32(0x391 + i),
                25 => Some('∇'),
                26..=50 => char::from_u32(0x3B1 + i - 26),
                51 => Some('∂'),
                52 => Some('ε'),
                53 => Some('θ'),
                54 => Some('κ'),
                55 => Some('φ'),
                56 => Some('ρ'),
                _ => Some('π'),
            }
        }
        // Mathematical digits: 5 styles of 0–9.
        0x1D7CE..=0x1D7FF => char::from_u32(0x30 + (cp - 0x1D7CE) % 10),
        // Circled, parenthesized, squared, negative circled and squared letters; regional
        // indicators.
        0x24B6..=0x24CF => offset(0x24B6, 'A'),
        0x24D0..=0x24E9 => offset(0x24D0, 'a'),
        0x249C..=0x24B5 => offset(0x249C, 'a'),
        0x1F110..=0x1F129 => offset(0x1F110, 'A'),
        0x1F130..=0x1F149 => offset(0x1F130, 'A'),
        0x1F150..=0x1F169 => offset(0x1F150, 'A'),
        0x1F170..=0x1F189 => offset(0x1F170, 'A'),
        0x1F1E6..=0x1F1FF => offset(0x1F1E6, 'A'),
        // Circled, parenthesized, full-stop and dingbat digits; superscripts and subscripts.
        0x2460..=0x2468 => offset(0x2460, '1'),
        0x2474..=0x247C => offset(0x2474, '1'),
        0x2488..=0x2490 => offset(0x2488, '1'),
        0x24F5..=0x24FD => offset(0x24F5, '1'),
        0x2776..=0x277E => offset(0x2776, '1'),
        0x2780..=0x2788 => offset(0x2780, '1'),
        0x278A..=0x2792 => offset(0x278A, '1'),
        0x24EA | 0x24FF | 0x1F100 | 0x2070 | 0x2080 => Some('0'),
        0x1F101..=0x1F10A => offset(0x1F101, '0'),
        0x2074..=0x2079 => offset(0x2074, '4'),
        0x2081..=0x2089 => offset(0x2081, '1'),
        0xB9 => Some('1'),
        0xB2 => Some('2'),
        0xB3 => Some('3'),
        0x2071 => Some('i'),
        0x207F => Some('n'),
        _ => nfkc_single::single(c),
    };
    let c = mapped.unwrap_or(c);
    match c {
        // Letterlike symbols (and the holes of the mathematical alphabets).
        'ℎ' => 'h',
        'ℊ' => 'g',
        'ℋ' | 'ℌ' | 'ℍ' => 'H',
        'ℐ' | 'ℑ' => 'I',
        'ℒ' => 'L',
        'ℕ' => 'N',
        'ℙ' => 'P',
        'ℚ' => 'Q',
        'ℛ' | 'ℜ' | 'ℝ' => 'R',
        'ℤ' => 'Z',
        'ℬ' => 'B',
        'ℭ' | 'ℂ' => 'C',
        'ℰ' => 'E',
        'ℱ' => 'F',
        'ℳ' => 'M',
        'ℴ' => 'o',
        'ℯ' => 'e',
        'ℹ' => 'i',
        'ⅅ' => 'D',
        'ⅆ' => 'd',
        'ⅇ' => 'e',
        'ⅈ' => 'i',
        'ⅉ' => 'j',
        '\u{212A}' => 'K',
        'ſ' => 's',
        'ª' => 'a',
        'º' => 'o',
        _ => c,
    }
}

/// The Latin letter (or ASCII character) a character is made to look like: compatibility
/// forms ([`compatibility_base`]), then the confusables of UTS #39 for Latin letters: Cyrillic,
/// Greek, Armenian, Lisu, IPA and small-capital lookalikes, dotless i; the character itself
/// otherwise.
fn latin_lookalike(c: char) -> char {
    match compatibility_base(c) {
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
        'ϲ' => 'c',
        'ϳ' => 'j',
        'Ϲ' => 'C',
        // Armenian.
        'օ' => 'o',
        'Օ' => 'O',
        'ս' => 'u',
        'Ս' => 'U',
        'ց' => 'g',
        'հ' => 'h',
        'ո' => 'n',
        'զ' => 'q',
        'Տ' => 'S',
        'Լ' => 'L',
        // Lisu capitals.
        'ꓮ' => 'A',
        'ꓐ' => 'B',
        'ꓚ' => 'C',
        'ꓓ' => 'D',
        'ꓰ' => 'E',
        'ꓝ' => 'F',
        'ꓖ' => 'G',
        'ꓧ' => 'H',
        'ꓲ' => 'I',
        'ꓙ' => 'J',
        'ꓗ' => 'K',
        'ꓡ' => 'L',
        'ꓟ' => 'M',
        'ꓠ' => 'N',
        'ꓳ' => 'O',
        'ꓑ' => 'P',
        'ꓣ' => 'R',
        'ꓢ' => 'S',
        'ꓔ' => 'T',
        'ꓴ' => 'U',
        'ꓦ' => 'V',
        'ꓪ' => 'W',
        'ꓫ' => 'X',
        'ꓬ' => 'Y',
        'ꓜ' => 'Z',
        // Small capitals.
        'ᴀ' => 'a',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴅ' => 'd',
        'ᴇ' => 'e',
        'ꜰ' => 'f',
        'ɢ' => 'g',
        'ʜ' => 'h',
        'ɪ' => 'i',
        'ᴊ' => 'j',
        'ᴋ' => 'k',
        'ʟ' => 'l',
        'ᴍ' => 'm',
        'ɴ' => 'n',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ꞯ' => 'q',
        'ʀ' => 'r',
        'ꜱ' => 's',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        'ʏ' => 'y',
        'ᴢ' => 'z',
        // IPA and other Latin lookalikes of Latin letters.
        'ɑ' => 'a',
        'ɡ' => 'g',
        'ɩ' => 'i',
        'ı' => 'i',
        'ȷ' => 'j',
        'ℓ' => 'l',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::{fold, name_fold, same_name, show_disguises};

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
    fn every_disguise_of_a_name_the_attacks_used_is_the_name() {
        // Armenian о, Latin alpha, small capital O, mathematical sans-serif and monospace,
        // circled, a tag space, DEL, NUL, a variation selector (supplement), punctuation.
        for disguised in [
            "\u{585}penai",
            "open\u{251}i",
            "\u{1d0f}penai",
            "\u{1d5c8}\u{1d5c9}\u{1d5be}\u{1d5c7}\u{1d5ba}\u{1d5c2}",
            "\u{1d698}\u{1d699}\u{1d68e}\u{1d697}\u{1d68a}\u{1d692}",
            "\u{24de}\u{24df}\u{24d4}\u{24dd}\u{24d0}\u{24d8}",
            "open\u{e0020}ai",
            "open\u{e0001}\u{e0061}ai",
            "open\u{7f}ai",
            "open\u{0}ai",
            "open\u{85}ai",
            "open\u{e0100}ai",
            "open\u{e01ef}ai",
            "open\u{fe0f}ai",
            "Open-AI",
            "open_ai",
            "open.ai",
            "open\u{2011}ai",
            "\u{1d428}\u{1d429}\u{1d41e}\u{1d427}\u{1d41a}\u{1d422}",
            "\u{1f13e}\u{1f13f}\u{1f134}\u{1f13d}\u{1f130}\u{1f138}",
            "\u{a4f3}penai",
            "\u{1d3c}penai",
            "\u{1d52}penai",
            "\u{2092}penai",
            "opena\u{2071}",
        ] {
            assert!(same_name(disguised, "openai"), "{disguised:?}");
            assert_eq!(name_fold(disguised), "openai", "{disguised:?}");
        }
        // Mathematical Greek reads as Greek, then as its Latin lookalike; digits as digits.
        assert!(same_name("gpt-\u{1d7d3}", "GPT5"));
        assert!(same_name("\u{1d6c2}", "a"));
        // Names stay apart where they differ in a letter or digit.
        assert!(!same_name("gpt-5", "gpt-4"));
        assert!(!same_name("openai", "openal"));
        // The leak scan's fold maps the same characters but keeps punctuation.
        assert_eq!(fold("\u{1d5ba}dd(1,\u{e0020}2)"), "add(1,2)");
        assert_ne!(fold("add(1, 2)"), fold("add12"));
        assert_eq!(show_disguises("open\u{e0020}ai"), "open\\u{e0020}ai");
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
