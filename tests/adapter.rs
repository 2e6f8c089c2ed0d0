//! The adapter layer: state tables, round trips, the empty task, cards without platform metadata.

use a2a_sim::engine::record::TaskState;
use a2a_sim::protocol::A2aVersion;
use a2a_sim::protocol::adapter::*;
use a2a_sim::protocol::card::card_json;
use serde_json::{Value, json};

use crate::common::*;

fn a2a_task(state: TaskState, v: A2aVersion, artifacts: Value) -> Value {
    let mut t = json!({
        "id": "task-7",
        "contextId": "ctx-3",
        "status": {"state": v.state(state)},
        "metadata": {"a2a-sim": {"agent": "sanctions-screener", "delegationChain": ["orchestrator", "payments-agent"]}}
    });
    if v == A2aVersion::V0_3 {
        t["kind"] = json!("task");
    }
    if !artifacts.is_null() {
        t["artifacts"] = artifacts;
    }
    t
}

fn screening_artifacts(v: A2aVersion) -> Value {
    json!([{"artifactId": "a-1", "name": "screening-result", "parts": parts(
        v,
        Some("Acme Trading FZE: 1 possible match (score 0.83) against SDN list"),
        json!({"matches": 1, "top_score": 0.83, "list": "SDN", "recommendation": "manual_review"}).as_object(),
    )}])
}

fn lossy_states() -> Vec<InternalState> {
    INTERNAL_TO_ACP
        .iter()
        .filter(|r| r.2 == Lossy::Yes)
        .map(|r| r.0)
        .collect()
}

#[test]
fn invariant_9_every_task_state_round_trips_through_the_internal_vocabulary() {
    for v in [A2aVersion::V1_0, A2aVersion::V0_3] {
        for state in TaskState::ALL {
            let internal = a2a_to_internal(&a2a_task(state, v, Value::Null)).unwrap();
            assert_eq!(internal_to_a2a_state(internal.state), state);
            let back = a2a_to_internal(&internal_to_a2a(&internal, v)).unwrap();
            assert_eq!(back, internal, "{state} in {v:?}");
        }
    }
    let distinct: std::collections::BTreeSet<&str> =
        A2A_TO_INTERNAL.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(distinct.len(), 8, "A2A -> internal is a bijection");
}

#[test]
fn invariant_10_a2a_internal_acp_internal_is_identity() {
    for v in [A2aVersion::V1_0, A2aVersion::V0_3] {
        for state in TaskState::ALL {
            for artifacts in [screening_artifacts(v), Value::Null] {
                let internal = a2a_to_internal(&a2a_task(state, v, artifacts)).unwrap();
                if lossy_states().contains(&internal.state) {
                    continue;
                }
                let acp = internal_to_acp(&internal, &RunTimes::default()).unwrap();
                assert_eq!(acp_to_internal(&acp).unwrap(), internal, "{state} in {v:?}");
            }
        }
    }
}

#[test]
fn an_empty_task_still_converts() {
    let internal =
        a2a_to_internal(&a2a_task(TaskState::Working, A2aVersion::V1_0, Value::Null)).unwrap();
    assert_eq!(internal.output_text, None);
    assert_eq!(internal.structured, None);
    let acp = internal_to_acp(&internal, &RunTimes::default()).unwrap();
    let parts = acp["output"][0]["parts"].as_array().unwrap();
    assert_eq!(
        parts.len(),
        1,
        "only the identity part: no empty text part, no empty JSON part"
    );
    assert_eq!(parts[0]["name"], IDENTITY_PART);
    let back = acp_to_internal(&acp).unwrap();
    assert_eq!(back, internal);
    assert_eq!(back.output_text, None, "absent stays absent, not \"\"");
}

#[test]
fn states_with_no_acp_equivalent_degrade_predictably() {
    let declared: Vec<(&str, &str)> = INTERNAL_TO_ACP
        .iter()
        .filter(|r| r.2 == Lossy::Yes)
        .map(|r| (r.0.as_str(), r.1.as_str()))
        .collect();
    assert_eq!(
        declared,
        [("awaiting_auth", "awaiting"), ("rejected", "failed")]
    );
    for (a2a, after) in [
        (TaskState::AuthRequired, InternalState::Awaiting),
        (TaskState::Rejected, InternalState::Failed),
    ] {
        let internal = a2a_to_internal(&a2a_task(
            a2a,
            A2aVersion::V1_0,
            screening_artifacts(A2aVersion::V1_0),
        ))
        .unwrap();
        let back =
            acp_to_internal(&internal_to_acp(&internal, &RunTimes::default()).unwrap()).unwrap();
        assert_eq!(back.state, after);
        assert_eq!(
            InternalTask {
                state: internal.state,
                ..back
            },
            internal,
            "only the state changes"
        );
    }
    // ACP's one state A2A lacks: a cancel in flight is still running.
    assert!(ACP_TO_INTERNAL.contains(&(AcpStatus::Cancelling, InternalState::Working, Lossy::Yes)));
}

#[test]
fn both_parts_survive_conversion() {
    let internal = a2a_to_internal(&a2a_task(
        TaskState::Completed,
        A2aVersion::V0_3,
        screening_artifacts(A2aVersion::V0_3),
    ))
    .unwrap();
    assert_eq!(
        internal.output_text.as_deref(),
        Some("Acme Trading FZE: 1 possible match (score 0.83) against SDN list")
    );
    assert_eq!(
        internal.structured.as_ref().unwrap()["recommendation"],
        "manual_review"
    );
    assert_eq!(
        internal.delegation_chain,
        ["orchestrator", "payments-agent"]
    );
}

#[test]
fn text_parts_join_and_data_parts_merge_in_order() {
    let v = A2aVersion::V1_0;
    let artifacts = json!([
        {"artifactId": "a", "parts": [{"text": "one"}, {"data": {"k": 1, "a": 1}}]},
        {"artifactId": "b", "parts": [{"text": "two"}, {"data": {"k": 2}}]}
    ]);
    let internal = a2a_to_internal(&a2a_task(TaskState::Completed, v, artifacts)).unwrap();
    assert_eq!(internal.output_text.as_deref(), Some("one\n\ntwo"));
    assert_eq!(
        Value::Object(internal.structured.unwrap()),
        json!({"k": 2, "a": 1})
    );
}

#[test]
fn acp_cannot_carry_a_task_without_a_valid_agent_name() {
    let mut foreign = a2a_task(TaskState::Completed, A2aVersion::V1_0, Value::Null);
    foreign.as_object_mut().unwrap().remove("metadata");
    let internal = a2a_to_internal(&foreign).unwrap();
    assert_eq!(
        internal.agent, None,
        "a foreign task without our metadata has no agent"
    );
    let e = internal_to_acp(&internal, &RunTimes::default()).unwrap_err();
    assert!(e.0.contains("agent_name"), "{e}");
    let bad = InternalTask {
        agent: Some("Sanctions_Screener".into()),
        ..internal
    };
    let e = internal_to_acp(&bad, &RunTimes::default()).unwrap_err();
    assert!(e.0.contains("^[a-z0-9]"), "{e}");
}

#[test]
fn a_foreign_acp_run_keeps_its_uuids() {
    let run = json!({"run_id": "0b5c5f36-1c38-4e8f-9f43-1a2b3c4d5e6f", "agent_name": "echo", "session_id": null,
                     "status": "cancelling", "output": [{"role": "agent/echo", "parts": [{"content_type": "text/plain", "content": "hi"}]}]});
    let t = acp_to_internal(&run).unwrap();
    assert_eq!(t.task_id, "0b5c5f36-1c38-4e8f-9f43-1a2b3c4d5e6f");
    assert_eq!(t.state, InternalState::Working);
    assert!(t.delegation_chain.is_empty());
    assert_eq!(t.output_text.as_deref(), Some("hi"));
}

#[test]
fn acp_ids_are_uuidv5_of_the_a2a_ids() {
    assert_eq!(uuid_for("task-1"), uuid_for("task-1"));
    assert_ne!(uuid_for("task-1"), uuid_for("task-2"));
    assert_eq!(
        ACP_NAMESPACE.to_string(),
        "7a49712a-1d82-5d29-b7e1-1db2e3fa6a4c"
    );
    assert!(
        is_acp_agent_name("sanctions-screener")
            && !is_acp_agent_name("-x")
            && !is_acp_agent_name("")
    );
}

#[test]
fn invariant_6_a_card_emits_exactly_ten_keys_none_of_them_platform_metadata() {
    let s = load(&one_agent(
        "[working, completed]",
        "  - get: {caller: orchestrator, task_id: task-1}",
    ));
    let card = &s.agents[0].card;
    let v03 = card_json(card, A2aVersion::V0_3).unwrap();
    let keys: Vec<&str> = v03
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "protocolVersion",
            "name",
            "description",
            "url",
            "preferredTransport",
            "version",
            "capabilities",
            "defaultInputModes",
            "defaultOutputModes",
            "skills"
        ]
    );
    let v10 = card_json(card, A2aVersion::V1_0).unwrap();
    assert!(
        v10.get("supportedInterfaces").is_some()
            && v10.get("url").is_none()
            && v10.get("kind").is_none()
    );
    for doc in [v03, v10] {
        let text = doc.to_string();
        for platform in [
            "tenant",
            "acme",
            "clearance",
            "confidential",
            "scopes",
            "handler",
        ] {
            assert!(!text.contains(platform), "`{platform}` leaked into {text}");
        }
    }
}

#[test]
fn a_card_without_a_description_carries_the_agent_name() {
    let s = load(
        "agents:\n  - {name: quiet, tenant: t, clearance: public, skills: [{id: s, tags: [x]}]}\ncallers: []\nsteps: []\n",
    );
    for v in [A2aVersion::V1_0, A2aVersion::V0_3] {
        let card = card_json(&s.agents[0].card, v).unwrap();
        assert_eq!(card["description"], "quiet");
        assert_eq!(
            card["skills"][0]["description"], "s",
            "a skill's description defaults to its name, which defaults to its id"
        );
    }
}
