//! Webhooks *to* a2a-sim: in a run with real agents, a push config a driver step sets on a real
//! agent's task is passed on to the agent with a URL of a2a-sim's (`/webhooks/TASK`), so the
//! agent's own notifications come back here and are recorded as the task's pushes.

use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use serde_json::{Value, json};

use super::job::{Answer, Req};
use super::request::read_body;
use super::responses::*;
use super::state::{State, ask};

/// `POST /webhooks/TASK`: the body (a JSON task or update) handed to the world's thread.
pub(super) async fn webhook(state: &State, tail: &str, req: Request<Incoming>) -> Response<Body> {
    if req.method() != Method::POST {
        return method_not_allowed();
    }
    let Ok(task) = tail.trim_end_matches('/').parse::<usize>() else {
        return not_found("a webhook URL is /webhooks/TASK, as a2a-sim gave it");
    };
    let body = match read_body(state, req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return json_response(400, &json!({"error": "a webhook's body is JSON"}));
    };
    match ask(state, Req::Webhook { task, body }).await {
        Answer::Error(f) => json_response(400, &json!({"error": f.message})),
        _ => json_response(200, &json!({})),
    }
}
