//! What `check` and `test` give a CI job: GitHub annotations (`--error-format github`), exit 2
//! when there is nothing to test, partitions that keep none, and a JUnit report whose message is
//! the first differing line.

use crate::common::{
    binary::{a2a_sim_in, scratch, write},
    library::{AGENTS_LIB, CALLERS_LIB, USES_LIBS, with_libs},
};

#[test]
fn github_annotations_for_check_and_test() {
    let dir = with_libs("ed-github");
    write(
        &dir,
        "bad.yaml",
        "agents: []\ncallers: []\nsteps:\n  - get: {caller: nobody, task_id: t}\n",
    );
    let r = a2a_sim_in(
        &dir,
        &["check", "--error-format", "github", "bad.yaml"],
        None,
    );
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.starts_with("::error file=bad.yaml,line=4,col="),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("::unknown caller `nobody`"),
        "{}",
        r.stderr
    );
    // A warning is `::warning` (a template's result that may be absent on some path).
    write(
        &dir,
        "warn.yaml",
        &format!(
            "templates: true\n{}{CALLERS_LIB}",
            AGENTS_LIB.replace(
                "handler: [working, completed]",
                "handler:\n      - when: {input: {}, text: x}\n        then: [delegate: {to: screener, text: t, as: r}]\n      - completed: \"{{{{result.r.text}}}}\""
            )
        ),
    );
    let r = a2a_sim_in(
        &dir,
        &["check", "--error-format", "github", "warn.yaml"],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("::warning file=warn.yaml,line=12,col="),
        "{}",
        r.stderr
    );

    assert_eq!(
        a2a_sim_in(&dir, &["test", "--bless", "s.yaml"], None).status,
        0
    );
    write(
        &dir,
        "s.yaml",
        &USES_LIBS.replace("text: hi", "text: changed"),
    );
    let r = a2a_sim_in(&dir, &["test", "--error-format", "github", "s.yaml"], None);
    assert_eq!(r.status, 1);
    let golden = std::fs::read_to_string(dir.join("s.golden.json")).unwrap();
    let line = golden.lines().position(|l| l.contains("\"hi\"")).unwrap() + 1;
    assert!(
        r.stdout
            .contains(&format!("::error file=s.golden.json,line={line},col=1::")),
        "{}",
        r.stdout
    );
}

#[test]
fn no_scenarios_exits_2_and_an_empty_partition_0() {
    let dir = scratch("ed-none");
    let r = a2a_sim_in(&dir, &["test", "."], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("no scenarios found under ."),
        "{}",
        r.stderr
    );
    // With no PATH, `test` searches `scenarios` (the README says so).
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    let r = a2a_sim_in(&dir, &["test"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("no scenarios found under scenarios"),
        "{}",
        r.stderr
    );
    let dir = with_libs("ed-partition");
    a2a_sim_in(&dir, &["test", "--bless", "."], None);
    let kept: Vec<i32> = (1..=3)
        .map(|m| {
            a2a_sim_in(
                &dir,
                &["test", "--partition", &format!("slice:{m}/3"), "."],
                None,
            )
            .status
        })
        .collect();
    assert_eq!(kept, [0, 0, 0]);
    let r = a2a_sim_in(&dir, &["test", "--partition", "slice:2/3", "."], None);
    assert!(
        r.stdout
            .ends_with("0 passed, 0 failed, 0 errors, 1 skipped\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn junit_message_is_the_first_differing_line_and_errors_are_counted() {
    let dir = with_libs("ed-junit");
    assert_eq!(
        a2a_sim_in(&dir, &["test", "--bless", "s.yaml"], None).status,
        0
    );
    write(
        &dir,
        "s.yaml",
        &USES_LIBS.replace("text: hi", "text: changed"),
    );
    write(&dir, "broken.yaml", "agents: [");
    let r = a2a_sim_in(&dir, &["test", "--junit", "j.xml", "."], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stdout.ends_with("0 passed, 1 failed, 1 error\n"),
        "{}",
        r.stdout
    );
    let xml = std::fs::read_to_string(dir.join("j.xml")).unwrap();
    assert!(xml.contains("<failure message=\"golden line "), "{xml}");
    assert!(
        xml.contains("expected `&quot;message&quot;: &quot;hi&quot;"),
        "{xml}"
    );
    // The body holds the whole diff: the actual line too.
    assert!(xml.contains("&quot;changed&quot;"), "{xml}");
    assert!(xml.contains("<error message="), "{xml}");
}

#[test]
fn a_junit_report_that_cannot_be_written_is_an_output_error_naming_it() {
    let dir = with_libs("ed-junit-unwritable");
    assert_eq!(
        a2a_sim_in(&dir, &["test", "--bless", "s.yaml"], None).status,
        0
    );
    // A folder where the file should go: the tests ran and passed, the report cannot be written.
    std::fs::create_dir_all(dir.join("j.xml")).unwrap();
    let r = a2a_sim_in(&dir, &["test", "--junit", "j.xml", "s.yaml"], None);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stdout.ends_with("1 passed, 0 failed, 0 errors\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .starts_with("a2a-sim: cannot write the JUnit report j.xml: "),
        "{}",
        r.stderr
    );
}
