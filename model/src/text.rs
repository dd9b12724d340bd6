//! The cap on kept text, part of the seam's contract: an adapter (the SDK's `push_capped`) cuts
//! a text at [`TEXT_CAP`] and ends it with [`CUT_NOTE`], and the [`Normalizer`](crate::Normalizer)
//! counts the texts that end so ([`is_cut`]) to warn once per input. The helpers that build such
//! texts are the adapter SDK's (`gapscore_adapter_sdk::text`).

/// Kept text per field (message, output) stops at this many bytes; the note comes after.
pub const TEXT_CAP: usize = 64 * 1024;

/// The note that ends a text cut at [`TEXT_CAP`].
pub const CUT_NOTE: &str = "\n[gapscore: cut at 64 KiB]";

/// True when `text` was cut at [`TEXT_CAP`]: it ends with [`CUT_NOTE`] (a trim at the end keeps it).
pub fn is_cut(text: &str) -> bool {
    text.ends_with(CUT_NOTE)
}
