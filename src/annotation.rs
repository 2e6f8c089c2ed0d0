//! GitHub Actions workflow commands (`::error file=F,line=L,col=C::message`), for
//! `--error-format github`: CI shows each as an annotation on the line it names.

/// The three levels GitHub knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }
}

/// One annotation line (without the newline). A newline in `message` is a line of the
/// annotation; any other control character (in it or in `file`) is shown escaped
/// ([`crate::escape`]): the log is read on a terminal-like page.
pub fn github(level: Level, file: &str, line: usize, column: usize, message: &str) -> String {
    let message: Vec<_> = message.split('\n').map(crate::escape::text).collect();
    format!(
        "::{} file={},line={line},col={column}::{}",
        level.command(),
        escape_property(&crate::escape::text(file)),
        escape_data(&message.join("\n"))
    )
}

/// GitHub's escaping of a command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub's escaping of a property value: the message's, and `:` and `,`, which end properties.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_github_does() {
        for (level, file, msg, want) in [
            (
                Level::Error,
                "a.yaml",
                "bad",
                "::error file=a.yaml,line=3,col=4::bad",
            ),
            (
                Level::Warning,
                "a,b:c.yaml",
                "50% done\r\nnext: x, y",
                "::warning file=a%2Cb%3Ac.yaml,line=3,col=4::50%25 done\\r%0Anext: x, y",
            ),
            // A control character from a name is shown escaped; a newline is a line.
            (
                Level::Error,
                "e\u{1b}[2J.yaml",
                "agent `a\u{1b}]0;x\u{7}`\n  hint",
                "::error file=e\\u{1b}[2J.yaml,line=3,col=4::agent `a\\u{1b}]0;x\\u{7}`%0A  hint",
            ),
            (
                Level::Notice,
                "n.yaml",
                "note",
                "::notice file=n.yaml,line=3,col=4::note",
            ),
        ] {
            assert_eq!(github(level, file, 3, 4, msg), want);
        }
    }
}
