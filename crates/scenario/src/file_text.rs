//! A scenario file's text: read from disk and decoded as UTF-8, or a located error saying why
//! not. The loader reads the file it is given with it, and `imports` each file imported.

use std::path::Path;

use crate::diagnostic::LoadError;

/// A scenario file's text, or a located error for a file that cannot be read or is not UTF-8.
pub fn read(path: &Path) -> Result<String, LoadError> {
    let display = path.display().to_string();
    let bytes = crate::regular_file::read(path, crate::regular_file::SCENARIO_LIMIT)
        .map_err(|e| LoadError::single(&display, 1, 1, format!("cannot read the file: {e}")))?;
    // The bytes become the text without a copy (a large file's second 10 MB) when they are UTF-8;
    // otherwise `decode_utf8` says why, as before.
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            Ok(text)
        }
        Err(e) => match decode_utf8(&display, e.as_bytes()) {
            Err(error) => Err(error),
            Ok(text) => Ok(text.to_string()),
        },
    }
}

/// The text of a file, or a located error at the first byte that is not UTF-8.
pub fn decode_utf8<'a>(display: &str, bytes: &'a [u8]) -> Result<&'a str, LoadError> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(LoadError::single(
            display,
            1,
            1,
            "the file is UTF-16; save it as UTF-8",
        ));
    }
    // A UTF-8 byte order mark is allowed and means nothing.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = good.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        LoadError::single(
            display,
            line,
            column,
            "the file is not valid UTF-8; save it as UTF-8",
        )
    })
}
