//! Folding text for the sealed-source match (spec §4.4): two texts that read the same to a
//! person fold to the same string, so a line of sealed test source is found however it was
//! respaced, recased or disguised.
//!
//! [`fold`] drops every whitespace character (spaces, tabs, no-break and other Unicode spaces,
//! line breaks) and every invisible format character (zero-width spaces and joiners, word
//! joiners, the byte-order mark, soft hyphens, direction marks); maps fullwidth ASCII and the
//! Cyrillic and Greek letters that look like Latin ones to those Latin letters; and lowercases.
//! It maps one character at a time, so a text containing a line also contains the line's fold
//! after folding: matching folded texts finds everything an exact match finds, and more.

/// The text as matched: see the module documentation.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_whitespace() || is_invisible(c) {
            continue;
        }
        let c = latin_lookalike(c);
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
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
    use super::fold;

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
