//! `check`'s warning on `policy.push_allowed_hosts` entries that name this machine.

use crate::problem::Problem;
use crate::yaml::Seg;
use engine::scenario::Scenario;

/// An allow-list entry that names this machine: `serve` resolves every push host and refuses
/// loopback addresses unless `--allow-loopback-push` is given, so the entry admits nothing there.
pub fn warnings(scenario: &Scenario) -> Vec<Problem> {
    let hosts = &scenario.policy.push_allowed_hosts;
    (0..hosts.len())
        .filter(|&i| hosts[i].names_this_machine())
        .map(|i| Problem {
            path: vec![
                Seg::from("policy"),
                Seg::from("push_allowed_hosts"),
                Seg::Index(i),
            ],
            message: format!(
                "`{}` names this machine (a loopback address): `serve` refuses to push there unless given `--allow-loopback-push`, for local tests only",
                hosts[i]
            ),
        })
        .collect()
}
