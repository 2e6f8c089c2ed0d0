//! The malformed-scenario corpus (`tests/malformed/*.yaml`): every file must fail to load with a
//! diagnostic at the offending value, from `check` and from `run` alike, without a panic or a hang.
//!
//! One row per file. A new file without a row fails `every_corpus_file_has_a_row`. Card files that
//! scenarios point at live in `tests/malformed/cards/` (`.json`, so they are no scenarios).
//!
//! Scalars stand for strings where a string is expected (`name: 42`, `text: true`), as YAML users
//! expect; an alias's value is reported at its anchor (where serde_yaml reads it).

use std::path::Path;

use crate::common::binary::{Run, a2a_sim};

const DIR: &str = "tests/malformed";

/// A file and the first diagnostic it must produce.
struct Row {
    file: &'static str,
    line: usize,
    column: Option<usize>,
    /// A substring of the first diagnostic's message.
    message: &'static str,
}

const fn row(file: &'static str, line: usize, column: Option<usize>, message: &'static str) -> Row {
    Row {
        file,
        line,
        column,
        message,
    }
}

#[rustfmt::skip]
const ROWS: &[Row] = &[
    // YAML syntax: an unclosed construct is reported where it opened.
    row("syntax-unclosed-flow-sequence.yaml", 8, Some(15), "flow sequence"),
    row("syntax-unclosed-flow-mapping.yaml", 17, Some(11), "flow mapping"),
    row("syntax-unterminated-quote.yaml", 17, Some(54), "quoted scalar"),
    row("syntax-bad-indentation.yaml", 5, None, "mapping values are not allowed"),
    row("syntax-under-indented-key.yaml", 4, Some(4), "indent"),
    row("syntax-tab-indentation.yaml", 14, Some(1), "tab character"),
    row("multiple-documents.yaml", 19, None, "document"),
    row("duplicate-key.yaml", 16, None, "duplicate field `tenant`"),
    row("data-duplicate-key.yaml", 17, Some(106), "duplicate field `matches`"),

    // The file as a whole.
    row("empty.yaml", 1, Some(1), "empty"),
    row("only-comments.yaml", 1, None, "empty"),
    row("top-level-list.yaml", 2, Some(1), "invalid type: sequence"),
    row("top-level-scalar.yaml", 2, Some(1), "invalid type: string"),
    row("invalid-utf8.yaml", 14, Some(16), "not valid UTF-8"),
    row("utf16.yaml", 1, Some(1), "UTF-8"),

    // Wrong types.
    row("type-string-for-list.yaml", 8, Some(15), "expected a sequence"),
    row("type-list-for-mapping.yaml", 6, Some(19), "invalid type: sequence"),
    row("type-list-for-policy.yaml", 3, Some(3), "invalid type: sequence"),
    row("type-agents-mapping.yaml", 3, Some(3), "expected a sequence"),
    row("type-mapping-for-caller.yaml", 17, Some(20), "expected a string"),
    row("alias-wrong-type.yaml", 6, Some(19), "caller orchestrator, tenant: invalid type"),
    row("null-text.yaml", 17, Some(54), "`text` must not be empty"),

    // Unknown keys and kinds, with a hint.
    row("unknown-top-level-key.yaml", 2, Some(1), "did you mean `policy`?"),
    row("unknown-key-agent.yaml", 6, Some(5), "did you mean `skills`?"),
    row("unknown-key-agent-handler.yaml", 9, Some(5), "did you mean `handler`?"),
    row("unknown-key-skill.yaml", 8, Some(9), "did you mean `tags`?"),
    row("unknown-key-caller.yaml", 14, Some(5), "did you mean `tenant`?"),
    row("unknown-key-step.yaml", 18, Some(11), "did you mean `caller`?"),
    row("unknown-key-artifact.yaml", 11, Some(34), "did you mean `text`?"),
    row("unknown-key-delegate.yaml", 11, Some(47), "did you mean `on_error`?"),
    row("unknown-key-policy.yaml", 3, Some(3), "did you mean `max_depth`?"),
    row("unknown-key-clock.yaml", 3, Some(3), "did you mean `epoch`?"),
    row("unknown-key-capabilities.yaml", 6, Some(20), "did you mean `streaming`?"),
    row("unknown-key-push.yaml", 17, Some(115), "did you mean `token`?"),
    row("unknown-key-expect.yaml", 21, Some(5), "did you mean `state`?"),
    row("unknown-target-key.yaml", 17, Some(38), "did you mean `discover`?"),
    row("unknown-step-kind.yaml", 17, Some(5), "did you mean `send`?"),
    row("unknown-step-kind-bare.yaml", 17, Some(5), "did you mean `send`?"),
    row("unknown-handler-step-kind.yaml", 10, Some(9), "did you mean `working`?"),
    row("unknown-handler-step-kind-with-text.yaml", 11, Some(9), "did you mean `completed`?"),
    row("unknown-delegate-on-error.yaml", 11, Some(57), "did you mean `continue`?"),
    row("step-two-kinds.yaml", 18, Some(10), "exactly one key"),
    row("handler-step-two-kinds.yaml", 11, Some(20), "exactly one key"),

    // Dangling references: at the reference.
    row("dangling-caller.yaml", 18, Some(19), "unknown caller `orchestrater`"),
    row("dangling-agent-to.yaml", 17, Some(38), "unknown agent `screner`; agents are declared under `agents` (did you mean `screener`?)"),
    row("dangling-agent-delegate.yaml", 11, Some(24), "unknown agent `payments-agent`"),
    row("dangling-agent-set-push-config.yaml", 18, Some(65), "unknown agent `payments-agent`"),
    row("dangling-alias-task.yaml", 18, Some(42), "unknown alias `frist`"),
    row("dangling-alias-context-of.yaml", 18, Some(80), "unknown alias `second`"),
    row("alias-used-before-defined.yaml", 17, Some(41), "unknown alias `first`"),
    row("alias-self-reference.yaml", 17, Some(92), "unknown alias `first`"),
    row("expect-unknown-alias.yaml", 22, Some(11), "unknown alias `second`"),

    // Duplicates: at the second definition.
    row("duplicate-agent-name.yaml", 12, Some(11), "duplicate agent name `screener`"),
    row("duplicate-caller-id.yaml", 16, Some(9), "duplicate caller id `orchestrator`"),
    row("duplicate-alias.yaml", 18, Some(72), "duplicate alias `first`"),
    row("duplicate-skill-id.yaml", 9, Some(13), "duplicate skill id `screen`"),
    row("skill-empty-tags.yaml", 8, Some(15), "a skill needs at least one tag"),

    // Classification levels.
    row("unknown-level-clearance.yaml", 5, Some(16), "did you mean `confidential`?"),
    row("unknown-level-classification.yaml", 15, Some(21), "unknown classification level `secret`"),
    row("duplicate-classification-level.yaml", 2, Some(57), "duplicate classification level `internal`"),
    row("custom-levels-unknown-clearance.yaml", 6, Some(16), "`low`, `internal`, `high`"),
    row("empty-classification-levels.yaml", 2, Some(24), "at least one level"),

    // Numbers out of range.
    row("huge-max-depth.yaml", 3, Some(14), "99999999999999999999999"),
    row("zero-max-depth.yaml", 3, Some(14), "max_depth must be at least 1, not 0"),
    row("negative-limit.yaml", 17, Some(64), "limit must be 0 or more, not -1"),
    row("negative-tick-ms.yaml", 2, Some(49), "tick_ms must be 0 or more, not -5"),

    // Nesting and alias expansion: refused, not a stack overflow or a hang.
    row("deep-flow-nesting.yaml", 17, None, "nested too deeply"),
    row("deep-block-nesting.yaml", 146, None, "nested too deeply"),
    row("billion-laughs.yaml", 21, None, "alias bomb"),

    // Load-time checks.
    row("context-and-context-of.yaml", 18, Some(97), "not both"),
    row("task-and-task-id.yaml", 18, Some(55), "not both"),
    row("neither-task-nor-task-id.yaml", 18, Some(13), "needs `task`"),
    row("empty-alias.yaml", 17, Some(73), "must not be empty"),
    row("empty-context.yaml", 17, Some(78), "`context` must not be empty"),
    row("empty-text.yaml", 17, Some(54), "`text` must not be empty"),
    row("artifact-without-content.yaml", 11, Some(19), "an artifact needs"),
    row("agent-empty-skills.yaml", 6, Some(13), "at least one skill"),
    row("agent-missing-skills.yaml", 3, Some(5), "needs `skills`"),
    row("agent-missing-tenant.yaml", 3, Some(5), "missing field `tenant`"),
    row("bad-push-host.yaml", 3, Some(44), "is not a host name"),
    row("bad-clock-epoch.yaml", 2, Some(16), "not an RFC 3339 timestamp"),
    row("bad-agent-url.yaml", 4, Some(10), "not an absolute URL"),
    row("card-missing-file.yaml", 13, Some(11), "cards/does-not-exist.json"),
    row("card-invalid.yaml", 13, Some(11), "required field `description` is missing"),
    row("card-not-json.yaml", 13, Some(11), "not valid JSON"),

    // Behaviour v2: handlers that decide, wait and fan out; task paths; golden: false.
    row("v2-duplicate-result-name.yaml", 12, Some(49), "duplicate result name `screen`"),
    row("v2-when-unknown-result.yaml", 12, Some(24), "unknown result `screne`"),
    row("v2-when-missing-then.yaml", 11, Some(15), "needs `then: [steps]`"),
    row("v2-artifact-from-with-text.yaml", 12, Some(37), "drop `text` and `data`"),
    row("v2-fan-out-escalate.yaml", 11, Some(66), "a fan-out cancels a child that pauses"),
    row("v2-bad-json-pointer.yaml", 12, Some(53), "not a valid JSON Pointer"),
    row("v2-operator-not-a-number.yaml", 12, Some(55), "`gt` needs a number"),
    row("v2-unknown-condition-key.yaml", 12, Some(16), "did you mean `result`?"),
    row("v2-stream-return-immediately.yaml", 18, Some(90), "a stream is read to its end"),
    row("v2-golden-false-without-expect.yaml", 18, Some(9), "needs at least one `expect` entry"),
    row("v2-wait-before-alias.yaml", 18, Some(18), "unknown alias `second`"),
    row("v2-expect-unknown-path.yaml", 20, Some(12), "did you mean `screen`?"),
];

/// What is wrong with one run of one row, if anything.
fn problems(row: &Row, args: &[&str], run: &Run) -> Vec<String> {
    let mut out = Vec::new();
    let first = run.stderr.lines().next().unwrap_or("");
    // The message is what follows `FILE:LINE:COL: `; the file name must not satisfy the check.
    let message = first
        .strip_prefix(&format!("{DIR}/{}:", row.file))
        .and_then(|rest| rest.splitn(3, ':').nth(2))
        .unwrap_or("");
    let want = match row.column {
        Some(c) => format!("{DIR}/{}:{}:{c}: ", row.file, row.line),
        None => format!("{DIR}/{}:{}:", row.file, row.line),
    };
    if run.status != 2 {
        out.push(format!("exit status {}, not 2", run.status));
    }
    if !run.stdout.is_empty() {
        out.push(format!("stdout is not empty: {:.200}", run.stdout));
    }
    if run.stderr.contains("panicked") {
        out.push("it panicked".to_string());
    }
    if !run.stderr.starts_with(&want) {
        out.push(format!("stderr does not start with {want:?}"));
    }
    if !message.contains(row.message) {
        out.push(format!(
            "the first diagnostic does not contain {:?}",
            row.message
        ));
    }
    if out.is_empty() {
        return out;
    }
    vec![format!(
        "{} ({}):\n    {}\n    stderr: {:.600}",
        row.file,
        args.join(" "),
        out.join("\n    "),
        run.stderr.trim_end()
    )]
}

#[test]
fn every_malformed_file_is_refused_at_the_offending_value() {
    let mut failures = Vec::new();
    for row in ROWS {
        let path = format!("{DIR}/{}", row.file);
        for args in [
            &["check", path.as_str()][..],
            &["run", "--format", "json", path.as_str()][..],
        ] {
            failures.extend(problems(row, args, &a2a_sim(args)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs went wrong:\n\n{}",
        failures.len(),
        ROWS.len() * 2,
        failures.join("\n\n")
    );
}

/// Every file of the corpus, as a path relative to [`DIR`], skipping `cards/`.
fn corpus_files() -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("the corpus directory") {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap();
            if path.is_dir() {
                if rel != Path::new("cards") {
                    walk(root, &path, out);
                }
            } else {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR);
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

#[test]
fn every_corpus_file_has_a_row() {
    let files = corpus_files();
    let mut rows: Vec<&str> = ROWS.iter().map(|r| r.file).collect();
    rows.sort_unstable();
    let twice: Vec<&str> = rows
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    let without_row: Vec<&String> = files
        .iter()
        .filter(|f| !rows.contains(&f.as_str()))
        .collect();
    let without_file: Vec<&&str> = rows
        .iter()
        .filter(|r| !files.iter().any(|f| f == **r))
        .collect();
    assert!(twice.is_empty(), "rows given twice: {twice:?}");
    assert!(
        without_row.is_empty(),
        "files in {DIR} without a row: {without_row:?}"
    );
    assert!(
        without_file.is_empty(),
        "rows without a file in {DIR}: {without_file:?}"
    );
    assert!(
        files.len() >= 45,
        "the corpus has only {} files",
        files.len()
    );
}

#[test]
fn checking_the_whole_corpus_reports_every_file_and_nothing_else() {
    let r = a2a_sim(&["check", DIR]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    for line in r.stderr.lines() {
        assert!(
            ROWS.iter()
                .any(|row| line.starts_with(&format!("{DIR}/{}:", row.file))),
            "a diagnostic for no corpus file (a card file read as a scenario?): {line}"
        );
    }
    // Every file that fails today gets at least one line.
    for row in ROWS {
        let a = a2a_sim(&["check", &format!("{DIR}/{}", row.file)]);
        if a.status == 2 {
            assert!(
                r.stderr.contains(&format!("{DIR}/{}:", row.file)),
                "{} is missing from the whole-directory check",
                row.file
            );
        }
    }
}
