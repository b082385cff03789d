//! Reading `bytes` input as text.

/// The text of UTF-8 `bytes`, without a leading byte order mark (as `json.loads` reads bytes),
/// or the offset in `bytes` of the first byte that is not UTF-8.
///
/// ```
/// use toolwire_core::utf8::decode_utf8;
/// assert_eq!(decode_utf8(b"\xef\xbb\xbf{}"), Ok("{}"));
/// assert_eq!(decode_utf8(b"\xef\xbb\xbfab\xff"), Err(5));
/// ```
pub fn decode_utf8(bytes: &[u8]) -> Result<&str, usize> {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let skipped = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    std::str::from_utf8(&bytes[skipped..]).map_err(|e| skipped + e.valid_up_to())
}
