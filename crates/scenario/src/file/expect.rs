//! `expect:` entries: assertions `a2a-sim test` checks besides (or, with `golden: false`, instead
//! of) the golden file.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{DataMap, TextTestFile, WordsFile, strict_map};

/// One assertion about the run's outcome: exactly one of `task`, `denied`, `ranking`, `matrix`,
/// `pushes`, `errors`, `deliveries`, `dead_letters`, `received`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectFile {
    /// A task, by the alias (`as`) of the send that created it, or a path through the `as` names
    /// of nested delegations: `pay/screen`, `pay/researchers/2`.
    pub task: Option<String>,
    /// With `task`: its final state (or any of a list).
    pub state: Option<WordsFile>,
    /// With `task`: its delegation chain.
    pub delegation_chain: Option<Vec<String>>,
    /// With `task`: the states of its status history, in order.
    pub history: Option<Vec<String>>,
    /// With `task`: the delegation's outcome (or any of a list).
    pub outcome: Option<WordsFile>,
    /// With `task`: its output text, equal or `{contains: S}`.
    pub text: Option<TextTestFile>,
    /// With `task`: tests on its structured data, `PATH: TEST`.
    #[serde(default, deserialize_with = "strict_map")]
    #[schemars(with = "Option<DataMap>")]
    pub data: Option<DataMap>,
    /// With `task`: the attempt that made it (1 unless retried).
    pub attempt: Option<i64>,
    /// A send's denial, by the send's alias or its step number (1-based), or a nested
    /// delegation's, by its path.
    pub denied: Option<StepRefFile>,
    /// With `denied`: the denial codes, in order (`[]`: admitted).
    pub codes: Option<Vec<String>>,
    /// A `discover` step's ranking, by its step number (1-based).
    pub ranking: Option<i64>,
    /// With `ranking`: the ranked agents, in order.
    pub agents: Option<Vec<String>>,
    /// A `matrix` step's whole grid, by its step number (1-based).
    pub matrix: Option<i64>,
    /// With `matrix`: `CALLER: {AGENT: [codes]}` for every pair of the step (`[]`: admitted).
    #[serde(default, deserialize_with = "strict_map")]
    #[schemars(with = "Option<DataMap>")]
    pub grid: Option<DataMap>,
    /// The number of pushes, or their states in order; or `{task: T}` with `last`, the pushes of
    /// one task.
    pub pushes: Option<PushesFile>,
    /// With `pushes: {task: T}`: what the last push for T carries (`{state: S}`).
    pub last: Option<LastPushFile>,
    /// Webhook delivery attempts (optionally of one task, to one URL), with `outcome` (delivered,
    /// failed, dead_letter) and `count` (a number or `{OP: N}`; default: at least one).
    pub deliveries: Option<DeliveriesFile>,
    /// With `deliveries` (how many attempts match) or `received` (how many tasks): a number or
    /// `{OP: N}` (`eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `in`).
    #[schemars(with = "Option<serde_json::Value>")]
    pub count: Option<serde_json::Value>,
    /// How many notifications were dead-lettered, a number or `{OP: N}`.
    #[schemars(with = "Option<serde_json::Value>")]
    pub dead_letters: Option<serde_json::Value>,
    /// The number of errors, or their codes in order.
    pub errors: Option<CountOrList>,
    /// The tasks created on this agent (by `from`, when given): `count` of them, and `text` and
    /// `data` tests on the first message of each (or of the `nth` only).
    pub received: Option<String>,
    /// With `received`: the caller or agent that sent them.
    pub from: Option<String>,
    /// With `received`: test only the K-th task (1-based, in the order they were created).
    pub nth: Option<i64>,
    /// Must hold under every fault schedule `explore` draws (and on the file's own run).
    pub always: Option<bool>,
    /// With `task`: the entry holds vacuously unless this task entry holds.
    #[serde(rename = "if")]
    pub given: Option<Box<ExpectFile>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StepRefFile {
    Step(i64),
    Alias(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CountOrList {
    Count(i64),
    List(Vec<String>),
}

/// `pushes:`: a count or a list of states (every push), or `{task: T}` (one task's, with `last`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PushesFile {
    All(CountOrList),
    OfTask(PushesOfTaskFile),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushesOfTaskFile {
    pub task: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LastPushFile {
    /// The state the last push carries (or any of a list).
    pub state: WordsFile,
}

/// Which delivery attempts `deliveries` counts: those of one task (its path) and one URL.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesFile {
    pub task: Option<String>,
    pub url: Option<String>,
}
