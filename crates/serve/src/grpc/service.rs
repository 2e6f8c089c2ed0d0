//! `A2AService`'s RPCs: each request's message as JSON-RPC-shaped params (its `tenant` naming
//! the agent, its metadata the caller), put to the desk as the other bindings put theirs, and the
//! answer as the RPC's response message or stream.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use prost::Message;
use serde_json::Value;
use tonic::codegen::tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::convert::{from_json, to_json};
use super::pb::v1::a2a_service_server::A2aService;
use super::pb::v1::*;
use super::status::status;
use crate::failure::{Failure, FailureKind};
use crate::job::{Answer, LiveStream};
use crate::protocol::{self, Op};
use crate::request::caller_from;
use crate::responses::pace;
use crate::routing::trace_id;
use crate::sse::Open;
use crate::state::{State, TRACE, ask};
use crate::stream_events::as_stream_event;
use output::protocol::A2aVersion;

/// The service: every served agent, told apart by the requests' `tenant`.
pub(crate) struct Agents(pub(crate) Arc<State>);

/// The agent a `tenant` names (`agents/NAME`, `as/CALLER/agents/NAME`, or none for
/// `--root-agent`) and the caller its prefix names.
fn tenant(state: &State, tenant: &str) -> Result<(Option<String>, usize), Status> {
    let tenant = tenant.trim_matches('/');
    let (caller, rest) = match tenant.strip_prefix("as/") {
        Some(tail) => match tail.split_once('/') {
            Some((caller, rest)) => (Some(caller.to_string()), rest),
            None => {
                return Err(Status::not_found(
                    "a caller's tenant is as/CALLER/agents/NAME",
                ));
            }
        },
        None => (None, tenant),
    };
    if rest.is_empty() && caller.is_none() {
        return state.root.map(|ix| (None, ix)).ok_or_else(|| {
            Status::not_found(
                "name the agent in the request's `tenant` (agents/NAME), as the card's GRPC interface does",
            )
        });
    }
    match rest
        .strip_prefix("agents/")
        .and_then(|name| state.agents.get(name))
    {
        Some(&ix) => Ok((caller, ix)),
        None => Err(Status::not_found(format!(
            "no agent is served at tenant `{}`: tenants are agents/NAME",
            rest.escape_debug()
        ))),
    }
}

impl Agents {
    /// The desk's answer to `op` on `message` (of the proto type `name`), with the params it was
    /// asked with (for the answer's `historyLength`).
    async fn ask<M: Message>(
        &self,
        op: Op,
        name: &str,
        request: Request<M>,
    ) -> Result<(Answer, Value), Status> {
        let state = &*self.0;
        state.touch();
        let answer = self.answer(op, name, request).await;
        state.touch();
        state.served_one();
        answer
    }

    async fn answer<M: Message>(
        &self,
        op: Op,
        name: &str,
        request: Request<M>,
    ) -> Result<(Answer, Value), Status> {
        let state = &*self.0;
        let (metadata, _, message) = request.into_parts();
        let headers = metadata.into_headers();
        let params = to_json(&format!("lf.a2a.v1.{name}"), &message)?;
        // gRPC is A2A 1.0's binding only.
        if let Some(v) = headers.get("a2a-version") {
            // As the HTTP ports read it: any 1.x is 1.0.
            let asked = crate::binding::negotiate(Some(v.as_bytes()));
            let v = v.to_str().unwrap_or("").trim();
            if !matches!(asked, Ok(A2aVersion::V1_0)) {
                return Err(status(&Failure::new(
                    FailureKind::VersionNotSupported,
                    format!(
                        "A2A-Version `{}`: this server's gRPC binding speaks 1.0",
                        v.escape_debug()
                    ),
                )));
            }
        }
        let (prefix, agent) = tenant(state, params["tenant"].as_str().unwrap_or(""))?;
        let caller = caller_from(state, &headers, prefix.as_deref()).map_err(|f| status(&f))?;
        let req = protocol::request(
            op,
            A2aVersion::V1_0,
            &params,
            caller,
            agent,
            &state.output_modes[agent],
        )
        .map_err(|f| status(&f))?;
        let answer = TRACE.scope(trace_id(&headers), ask(state, req)).await;
        Ok((answer, params))
    }

    /// A unary RPC's answer: its response message (of the proto type `name`).
    async fn unary<M: Message, R: Message + Default>(
        &self,
        op: Op,
        request_name: &str,
        request: Request<M>,
        name: &str,
    ) -> Result<Response<R>, Status> {
        let (answer, params) = self.ask(op, request_name, request).await?;
        let value = protocol::unary_value(op, A2aVersion::V1_0, &params, answer)
            .map_err(|f| failure(&f))?;
        from_json(&format!("lf.a2a.v1.{name}"), value).map(Response::new)
    }

    /// A streaming RPC's answer: its events, ending as the desk ends them (after the status
    /// update that leaves the task terminal or interrupted).
    async fn stream<M: Message>(
        &self,
        op: Op,
        request_name: &str,
        request: Request<M>,
    ) -> Result<Response<Events>, Status> {
        let (answer, _) = self.ask(op, request_name, request).await?;
        let streams = &self.0.streams;
        let live = match answer {
            Answer::Task(t) => pace(
                streams,
                vec![(as_stream_event(t, A2aVersion::V1_0), Default::default())],
            ),
            Answer::Events(events) => pace(streams, events),
            Answer::Live(live) => live,
            Answer::Value(v) => pace(streams, vec![(v, Default::default())]),
            Answer::Error(f) => return Err(failure(&f)),
        };
        Ok(Response::new(Events {
            live,
            _open: streams.hold(),
        }))
    }
}

/// A failure as its status; a `reset` fault (a connection closed without an answer on HTTP) as
/// what a gRPC client sees of a server gone away, and an `http_error` fault as a gRPC client
/// reads that HTTP status from a proxy (gRPC's own table: 401, 403, 404, 429 and 50x have a code,
/// the rest is UNKNOWN), its ErrorInfo kept.
fn failure(f: &Failure) -> Status {
    match f.kind {
        FailureKind::Reset => Status::unavailable("the agent went away without answering"),
        FailureKind::HttpError(http) => {
            let s = status(f);
            let code = match http {
                400 => tonic::Code::Internal,
                401 => tonic::Code::Unauthenticated,
                403 => tonic::Code::PermissionDenied,
                404 => tonic::Code::Unimplemented,
                429 | 502..=504 => tonic::Code::Unavailable,
                _ => tonic::Code::Unknown,
            };
            Status::with_details(code, s.message(), s.details().to_vec().into())
        }
        _ => status(f),
    }
}

/// A stream's events as `StreamResponse`s; counted open (the server is not idle) while it lives.
pub(crate) struct Events {
    live: LiveStream,
    _open: Open,
}

impl Stream for Events {
    type Item = Result<StreamResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.live
            .poll_recv(cx)
            .map(|event| event.map(|e| from_json("lf.a2a.v1.StreamResponse", e)))
    }
}

#[tonic::async_trait]
impl A2aService for Agents {
    async fn send_message(
        &self,
        request: Request<SendMessageRequest>,
    ) -> Result<Response<SendMessageResponse>, Status> {
        self.unary(
            Op::Send,
            "SendMessageRequest",
            request,
            "SendMessageResponse",
        )
        .await
    }

    type SendStreamingMessageStream = Events;

    async fn send_streaming_message(
        &self,
        request: Request<SendMessageRequest>,
    ) -> Result<Response<Events>, Status> {
        self.stream(Op::Stream, "SendMessageRequest", request).await
    }

    async fn get_task(&self, request: Request<GetTaskRequest>) -> Result<Response<Task>, Status> {
        self.unary(Op::Get, "GetTaskRequest", request, "Task").await
    }

    async fn list_tasks(
        &self,
        request: Request<ListTasksRequest>,
    ) -> Result<Response<ListTasksResponse>, Status> {
        self.unary(Op::List, "ListTasksRequest", request, "ListTasksResponse")
            .await
    }

    async fn cancel_task(
        &self,
        request: Request<CancelTaskRequest>,
    ) -> Result<Response<Task>, Status> {
        self.unary(Op::Cancel, "CancelTaskRequest", request, "Task")
            .await
    }

    type SubscribeToTaskStream = Events;

    async fn subscribe_to_task(
        &self,
        request: Request<SubscribeToTaskRequest>,
    ) -> Result<Response<Events>, Status> {
        self.stream(Op::Subscribe, "SubscribeToTaskRequest", request)
            .await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<TaskPushNotificationConfig>,
    ) -> Result<Response<TaskPushNotificationConfig>, Status> {
        let name = "TaskPushNotificationConfig";
        self.unary(Op::SetPush, name, request, name).await
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<TaskPushNotificationConfig>, Status> {
        let name = "GetTaskPushNotificationConfigRequest";
        self.unary(Op::GetPush, name, request, "TaskPushNotificationConfig")
            .await
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<ListTaskPushNotificationConfigsResponse>, Status> {
        let name = "ListTaskPushNotificationConfigsRequest";
        let response = "ListTaskPushNotificationConfigsResponse";
        self.unary(Op::ListPush, name, request, response).await
    }

    async fn get_extended_agent_card(
        &self,
        request: Request<GetExtendedAgentCardRequest>,
    ) -> Result<Response<AgentCard>, Status> {
        self.unary(
            Op::ExtendedCard,
            "GetExtendedAgentCardRequest",
            request,
            "AgentCard",
        )
        .await
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<()>, Status> {
        let name = "DeleteTaskPushNotificationConfigRequest";
        let (answer, _) = self.ask(Op::DeletePush, name, request).await?;
        match answer {
            Answer::Error(f) => Err(failure(&f)),
            _ => Ok(Response::new(())),
        }
    }
}
