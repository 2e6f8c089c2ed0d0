//! The command line's second stage. Stage one is clap's ([`args`](super::args)): flags parsed,
//! each on its own. Here they are checked together and given their defaults, one value per
//! command, before anything runs: every usage error of a combination (`--jsonrpc` without
//! `--format a2a-stream`, `test --set`, a serve timeout out of range, `--record` of a file with
//! steps) is found here, so the commands take a config they can trust.

use std::path::PathBuf;

use super::args::*;
use crate::corpus;
use crate::error::Error;
use crate::protocol::A2aVersion;
use crate::running::RealAgentArgs;
use crate::scenario::Override;
use crate::testing::partition::Partition;

/// What one command runs with.
pub(super) enum Config {
    Run(RunConfig),
    Check(CheckConfig),
    Test(TestConfig),
    Explore(ExploreConfig),
    #[cfg(feature = "serve")]
    Serve(Box<ServeConfig>),
    Card(CardConfig),
    /// A command whose flags clap checks entirely: it runs as parsed.
    Plain(Command),
}

/// `card`: print a scenario agent's card (or list the agents), or check a card's signatures.
pub(super) enum CardConfig {
    Print {
        file: PathBuf,
        agent: Option<String>,
        version: A2aVersion,
        list: bool,
    },
    Verify {
        card: PathBuf,
        keys: PathBuf,
    },
}

pub(super) struct RunConfig {
    pub files: Vec<PathBuf>,
    /// `--jsonrpc` folded in (`a2a-stream-jsonrpc`).
    pub format: Format,
    pub version: A2aVersion,
    pub jobs: usize,
    pub set: Vec<Override>,
    pub real: RealAgentArgs,
}

pub(super) struct CheckConfig {
    pub paths: Vec<PathBuf>,
    pub error_format: ErrorFormat,
    pub deny_warnings: bool,
    /// The warning codes `--allow` silences.
    pub allowed: Vec<&'static str>,
    pub jobs: usize,
    pub set: Vec<Override>,
}

pub(super) struct TestConfig {
    pub paths: Vec<PathBuf>,
    pub bless: bool,
    pub partition: Option<Partition>,
    pub junit: Option<PathBuf>,
    pub jobs: usize,
    /// `--error-format github`: failures as workflow annotations too.
    pub github: bool,
    pub real: RealAgentArgs,
}

pub(super) struct ExploreConfig {
    pub files: Vec<PathBuf>,
    pub options: crate::testing::explore::Options,
    pub set: Vec<Override>,
    pub real: RealAgentArgs,
}

#[cfg(feature = "serve")]
pub(super) struct ServeConfig {
    pub file: PathBuf,
    pub set: Vec<Override>,
    /// Everything but the scenario, which is loaded when the command runs (a load error is
    /// not a usage error: it is located in the file).
    pub options: crate::serve::Options,
}

impl Config {
    /// Checks `command`'s flags together and fills in their defaults.
    pub(super) fn from_command(command: Command) -> Result<Config, Error> {
        let jobs = |j: Option<usize>| j.unwrap_or_else(corpus::default_jobs);
        Ok(match command {
            Command::Run {
                files,
                format,
                a2a_version,
                jobs: j,
                set,
                jsonrpc,
                real,
            } => Config::Run(RunConfig {
                files,
                format: match (jsonrpc, format) {
                    (false, f) => f,
                    (true, Format::A2aStream) => Format::A2aStreamJsonRpc,
                    (true, _) => {
                        return Err(Error::Usage(
                            "`--jsonrpc` wraps stream events: it needs `--format a2a-stream`"
                                .into(),
                        ));
                    }
                },
                version: a2a_version.a2a(),
                jobs: jobs(j),
                set,
                real,
            }),
            Command::Check {
                paths,
                error_format,
                deny,
                allow,
                jobs: j,
                set,
            } => Config::Check(CheckConfig {
                paths,
                error_format,
                deny_warnings: deny.contains(&Deny::Warnings),
                allowed: allow.iter().map(|a| a.code()).collect(),
                jobs: jobs(j),
                set,
            }),
            Command::Test { set, .. } if !set.is_empty() => {
                return Err(Error::Usage(
                    "`test --set` is refused: goldens pin scenario files as written, not overrides; use `run --set` or write the value in a file".into(),
                ));
            }
            Command::Test {
                paths,
                bless,
                partition,
                junit,
                error_format,
                jobs: j,
                set: _,
                real,
            } => Config::Test(TestConfig {
                paths,
                bless,
                partition,
                junit,
                jobs: jobs(j),
                github: error_format == TestErrorFormat::Github,
                real,
            }),
            Command::Explore {
                files,
                runs,
                seed,
                faults,
                jobs: j,
                partition,
                format,
                agents,
                skip_agents,
                max_distinct,
                set,
                real,
            } => Config::Explore(ExploreConfig {
                files,
                options: crate::testing::explore::Options {
                    runs,
                    seed,
                    kinds: faults.unwrap_or([true; 5]),
                    jobs: jobs(j),
                    slice: partition,
                    json: format == ExploreFormat::Json,
                    agents,
                    skip_agents,
                    max_distinct: max_distinct.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
                },
                set,
                real,
            }),
            #[cfg(feature = "serve")]
            Command::Serve(a) => Config::Serve(Box::new(ServeConfig::from(a)?)),
            Command::Card {
                file,
                agent,
                a2a_version,
                list,
                verify,
                keys,
            } => Config::Card(match (verify, keys, file) {
                (Some(card), Some(keys), _) => CardConfig::Verify { card, keys },
                (_, _, Some(file)) => CardConfig::Print {
                    file,
                    agent,
                    version: a2a_version.a2a(),
                    list,
                },
                _ => {
                    return Err(Error::Usage(
                        "`card` takes a scenario file, or `--verify CARD --keys JWKS`".into(),
                    ));
                }
            }),
            plain => Config::Plain(plain),
        })
    }
}

#[cfg(feature = "serve")]
impl ServeConfig {
    fn from(a: ServeArgs) -> Result<ServeConfig, Error> {
        let ServeArgs {
            file,
            listen,
            advertise_host,
            a2a_version,
            root_agent,
            tick_ms,
            wall_clock,
            allow_loopback_push,
            push_ca,
            report,
            record,
            ready_file,
            exit_after,
            idle_exit,
            max_body,
            header_timeout,
            keep_alive_timeout,
            max_connections,
            default_caller,
            relay_children,
            grpc_listen,
            set,
        } = a;
        let seconds = |flag: &str, s: f64| {
            // At most a day: a longer timeout is no limit, and Duration must hold it.
            if s.is_finite() && s > 0.0 && s <= 86_400.0 {
                Ok(std::time::Duration::from_secs_f64(s))
            } else {
                Err(Error::Usage(format!(
                    "--{flag} {s}: give a number of seconds above 0, at most 86400"
                )))
            }
        };
        let idle_exit = match idle_exit {
            Some(s) if s.is_finite() && s > 0.0 => {
                Some(std::time::Duration::try_from_secs_f64(s).map_err(|_| {
                    Error::Usage(format!(
                        "--idle-exit {s}: give a positive number of seconds (this one is too large to wait)"
                    ))
                })?)
            }
            Some(s) => {
                return Err(Error::Usage(format!(
                    "--idle-exit {s}: give a positive number of seconds"
                )));
            }
            None => None,
        };
        let header = seconds("header-timeout", header_timeout)?;
        let keep_alive = seconds("keep-alive-timeout", keep_alive_timeout)?;
        if max_connections == 0 {
            return Err(Error::Usage("--max-connections 0: give at least 1".into()));
        }
        let options = crate::serve::Options {
            listen,
            advertise_host,
            version: a2a_version.a2a(),
            root_agent,
            tick_ms,
            wall_clock,
            allow_loopback_push,
            push_ca,
            report,
            record: record.map(|r| (r, file.clone())),
            ready_file,
            exit_after,
            idle_exit,
            max_body,
            limits: crate::serve::Limits {
                header,
                keep_alive,
                max_connections,
            },
            default_caller,
            relay_children,
            grpc_listen,
            log: crate::error::log,
        };
        Ok(ServeConfig { file, set, options })
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn config(args: &[&str]) -> Result<Config, Error> {
        let args = Args::try_parse_from([&["a2a-sim"][..], args].concat()).expect("clap parses");
        Config::from_command(args.command)
    }

    fn usage(args: &[&str]) -> String {
        match config(args) {
            Err(Error::Usage(m)) => m,
            Err(e) => panic!("not a usage error: {e}"),
            Ok(_) => panic!("{args:?} passed the second stage"),
        }
    }

    #[test]
    fn jsonrpc_folds_into_the_stream_format_and_needs_it() {
        match config(&["run", "f.yaml", "--format", "a2a-stream", "--jsonrpc"]) {
            Ok(Config::Run(c)) => assert!(c.format == Format::A2aStreamJsonRpc),
            _ => panic!("a run config"),
        }
        assert!(usage(&["run", "f.yaml", "--jsonrpc"]).contains("needs `--format a2a-stream`"));
    }

    #[cfg(feature = "serve")]
    #[test]
    fn an_idle_exit_too_large_to_wait_is_a_usage_error() {
        let message = usage(&["serve", "f.yaml", "--idle-exit", "1e20"]);
        assert!(
            message
                .contains("--idle-exit 100000000000000000000: give a positive number of seconds"),
            "{message}"
        );
        assert!(usage(&["serve", "f.yaml", "--idle-exit", "0"]).contains("give a positive number"));
    }

    #[test]
    fn card_prints_or_verifies() {
        match config(&["card", "f.yaml", "--a2a-version", "0.3"]) {
            Ok(Config::Card(CardConfig::Print { agent, version, .. })) => {
                assert_eq!(agent, None);
                assert_eq!(version, A2aVersion::V0_3);
            }
            _ => panic!("a card to print"),
        }
        match config(&["card", "--verify", "c.json", "--keys", "k.json"]) {
            Ok(Config::Card(CardConfig::Verify { card, keys })) => {
                assert_eq!(
                    (card.as_path(), keys.as_path()),
                    (
                        std::path::Path::new("c.json"),
                        std::path::Path::new("k.json")
                    )
                );
            }
            _ => panic!("a card to verify"),
        }
    }

    #[test]
    fn defaults_are_filled_in() {
        match config(&["run", "f.yaml"]) {
            Ok(Config::Run(c)) => {
                assert_eq!(c.jobs, corpus::default_jobs());
                // What `coverage`, which has no real-agent flags, runs with.
                assert_eq!(c.real, RealAgentArgs::default());
            }
            _ => panic!("a run config"),
        }
        match config(&["check", "f.yaml", "--deny", "warnings"]) {
            Ok(Config::Check(c)) => assert!(c.deny_warnings),
            _ => panic!("a check config"),
        }
    }

    #[test]
    fn test_refuses_overrides() {
        assert!(usage(&["test", "f.yaml", "--set", "name=x"]).contains("`test --set` is refused"));
    }

    #[cfg(feature = "serve")]
    #[test]
    fn serve_limits_are_checked_before_anything_runs() {
        assert!(
            usage(&["serve", "f.yaml", "--header-timeout", "0"]).contains("--header-timeout 0")
        );
        assert!(usage(&["serve", "f.yaml", "--idle-exit=-1"]).contains("--idle-exit -1"));
        assert!(usage(&["serve", "f.yaml", "--max-connections", "0"]).contains("at least 1"));
        match config(&["serve", "f.yaml", "--record", "s.yaml"]) {
            Ok(Config::Serve(c)) => {
                let (to, served) = c.options.record.clone().expect("--record kept");
                assert_eq!(
                    (to.to_str(), served.to_str()),
                    (Some("s.yaml"), Some("f.yaml"))
                );
            }
            _ => panic!("a serve config"),
        }
    }
}
