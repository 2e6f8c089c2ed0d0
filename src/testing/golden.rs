//! `a2a-sim test`: each scenario's JSON report against its golden file, plus its `expect:` entries.

use std::path::{Path, PathBuf};

use similar::TextDiff;

use crate::engine;
use crate::error::LoadError;
use crate::report::json as report_json;
use crate::scenario::yaml;
use crate::testing::expect;

/// The golden file of `X.yaml` (or `X.yml`): `X.golden.json` beside it.
pub fn golden_path(scenario: &Path) -> PathBuf {
    let stem = scenario
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    scenario.with_file_name(format!("{stem}.golden.json"))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blessed {
    New,
    Updated,
}

/// What happened to one scenario.
#[derive(Debug)]
pub struct Outcome {
    pub path: PathBuf,
    pub load_error: Option<LoadError>,
    /// The golden file is missing (and was not blessed).
    pub missing_golden: bool,
    /// Unified diff, expected (golden) vs actual, when they differ.
    pub diff: Option<String>,
    /// Where the golden and the actual output first differ, when they do.
    pub first_difference: Option<FirstDifference>,
    /// Failed expectations, each `FILE:LINE:COL: message`.
    pub unmet: Vec<String>,
    pub blessed: Option<Blessed>,
    /// Writing the golden failed.
    pub write_error: Option<String>,
    /// The run could not be made: a real agent that could not be started or reached.
    pub run_error: Option<String>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.load_error.is_none()
            && self.run_error.is_none()
            && !self.missing_golden
            && self.diff.is_none()
            && self.unmet.is_empty()
            && self.write_error.is_none()
    }
}

/// Runs one scenario and compares it; with `bless`, writes the golden instead of failing on it.
pub fn test_one(path: &Path, bless: bool, real: &crate::running::RealAgentArgs) -> Outcome {
    let mut o = Outcome {
        path: path.to_path_buf(),
        load_error: None,
        missing_golden: false,
        diff: None,
        first_difference: None,
        unmet: Vec::new(),
        blessed: None,
        write_error: None,
        run_error: None,
    };
    let (text, scenario) = match crate::scenario::read(path).and_then(|text| {
        let s = crate::scenario::Load::text(
            &path.display().to_string(),
            &text,
            path.parent().unwrap_or(Path::new(".")),
            crate::scenario::default_name(path),
        )
        .scenario()?;
        Ok((text, s))
    }) {
        Ok(pair) => pair,
        Err(e) => {
            o.load_error = Some(e);
            return o;
        }
    };
    let ran = crate::running::run(
        scenario,
        engine::RecordStreams::StreamSteps,
        crate::running::Teardown::Drop,
        real,
        |w, _| compare(&mut o, w, &text, path, bless),
    );
    if let Err(m) = ran {
        o.run_error = Some(m);
    }
    o
}

/// The `expect` entries a run does not meet, each as `FILE:LINE:COL: expectation failed: …` (`text`
/// is the file's, which locates them; an imported entry is located in its own file).
pub fn unmet_located(w: &engine::World, text: &str, path: &Path) -> Vec<String> {
    let scenario = w.record.scenario;
    // Indexed once for all of them: many unmet expectations in a long file cost one pass.
    let mut index = None;
    let mut out = Vec::new();
    for unmet in expect::check(w) {
        let site = match scenario.expectation_sites.get(unmet.index) {
            Some(site) => site.clone(),
            None => {
                let (line, col) = index
                    .get_or_insert_with(|| yaml::Index::new(text))
                    .locate(
                        text,
                        &[yaml::Seg::from("expect"), yaml::Seg::Index(unmet.index)],
                    )
                    .unwrap_or((1, 1));
                format!("{}:{line}:{col}", path.display())
            }
        };
        out.push(format!("{site}: expectation failed: {}", unmet.message));
    }
    out
}

/// The run's report against the golden, and its `expect` entries.
fn compare(o: &mut Outcome, w: &engine::World, text: &str, path: &Path, bless: bool) {
    let scenario = w.record.scenario;
    let mut actual = Vec::new();
    let _ = report_json::write(w, &mut actual);
    let actual = String::from_utf8_lossy(&actual).into_owned();
    o.unmet = unmet_located(w, text, path);
    // `golden: false`: the expectations alone decide.
    if !scenario.golden {
        return;
    }
    let golden = golden_path(path);
    let expected = crate::regular_file::read(&golden, crate::regular_file::SCENARIO_LIMIT)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).replace("\r\n", "\n"));
    if expected.as_deref() == Some(actual.as_str()) {
        return;
    }
    if bless {
        match std::fs::write(&golden, &actual) {
            Ok(()) => {
                o.blessed = Some(if expected.is_some() {
                    Blessed::Updated
                } else {
                    Blessed::New
                })
            }
            Err(e) => {
                o.write_error = Some(format!(
                    "{}: cannot write the golden: {e}",
                    golden.display()
                ))
            }
        }
        return;
    }
    match expected {
        None => o.missing_golden = true,
        Some(expected) => {
            let diff = TextDiff::from_lines(&expected, &actual)
                .unified_diff()
                .context_radius(3)
                .header(
                    &format!("{} (golden)", golden.display()),
                    &format!("{} (actual)", path.display()),
                )
                .to_string();
            o.diff = Some(diff);
            o.first_difference = Some(first_difference(&expected, &actual));
        }
    }
}

/// The first line where a golden and the actual output differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstDifference {
    /// 1-based line in the golden (one past its end when the actual output is longer).
    pub line: usize,
    /// The golden's line, or None past its end.
    pub golden: Option<String>,
    /// The actual line, or None past its end.
    pub actual: Option<String>,
}

impl FirstDifference {
    /// One line for a JUnit `message` or an annotation.
    pub fn summary(&self) -> String {
        let show = |l: &Option<String>| match l {
            Some(l) => format!("`{}`", l.trim()),
            None => "(end of file)".to_string(),
        };
        format!(
            "golden line {}: expected {}, actual {}",
            self.line,
            show(&self.golden),
            show(&self.actual)
        )
    }
}

pub fn first_difference(golden: &str, actual: &str) -> FirstDifference {
    let (mut g, mut a) = (golden.lines(), actual.lines());
    let mut line = 1;
    loop {
        match (g.next(), a.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (None, None) => {
                return FirstDifference {
                    line,
                    golden: None,
                    actual: None,
                };
            }
            (x, y) => {
                return FirstDifference {
                    line,
                    golden: x.map(str::to_string),
                    actual: y.map(str::to_string),
                };
            }
        }
    }
}
