//! Verified callers in the world: a driver caller's token is verified on every request, and each
//! nested hop gets a token the platform mints and the callee verifies, both at the scenario clock
//! before any tick the request causes. The caller context is read from the verified claims.

use crate::caller_context::CallerContext;
use crate::record::ErrorCode;
use crate::scenario::*;
use crate::symbols::Sym;
use crate::task::TaskIx;
use crate::token::{Grant, VerifiedToken};
use crate::world::World;

impl<'s> World<'s> {
    /// The scenario clock's timestamp now, in milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64 {
        self.record.scenario.clock.millis(self.clock())
    }

    fn sym(&self, name: &str, claim: &str) -> Result<Sym, String> {
        self.record.scenario.symbols.get(name).ok_or_else(|| {
            format!("claim `{claim}` names `{name}`, which this scenario does not know")
        })
    }

    /// The caller context a verified token gives, with `scopes` (the file's or the agent's, which
    /// must be what the token says).
    fn claims_context(
        &mut self,
        vt: &VerifiedToken,
        scopes: std::borrow::Cow<'s, [Sym]>,
    ) -> Result<CallerContext<'s>, String> {
        let agent_id = self.sym(&vt.sub, "sub")?;
        let tenant = self.sym(vt.tenant.as_deref().unwrap_or_default(), "tenant")?;
        let level = vt.classification.as_deref().unwrap_or_default();
        let classification = self
            .scenario
            .levels
            .iter()
            .position(|l| l == level)
            .ok_or_else(|| format!("claim `classification` names `{level}`, which is not a classification level here"))?;
        let claimed = vt
            .scope
            .iter()
            .map(|s| self.sym(s, "scope"))
            .collect::<Result<Vec<_>, _>>()?;
        if claimed.as_slice() != &*scopes {
            return Err("claim `scope` is not the scopes this caller was loaded with".to_string());
        }
        let chain = vt
            .act_chain
            .iter()
            .map(|s| self.sym(s, "act"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CallerContext {
            agent_id,
            tenant,
            classification,
            scopes,
            delegation_chain: self.record.chains.from_slice(&chain),
        })
    }

    /// Verifies a driver caller's token for this request. `false`: refused (`unauthenticated`
    /// recorded); the step does nothing else. Callers without a token pass.
    pub(crate) fn authenticate(&mut self, caller: CallerIx) -> bool {
        let c = &self.record.scenario.callers[caller];
        let (Some(token), Some(tokens)) = (&c.token, &self.record.scenario.tokens) else {
            return true;
        };
        let checked = tokens.verify(token, self.now_ms()).and_then(|vt| {
            let ctx = self.claims_context(&vt, std::borrow::Cow::Borrowed(c.scopes.as_slice()))?;
            // The loader interned these names from the same token bytes: ownership and
            // discovery read them, so they must agree with the verified claims.
            if (ctx.agent_id, ctx.tenant, ctx.classification) != (c.sym, c.tenant, c.classification)
            {
                return Err("the token's claims are not the ones it was loaded with".to_string());
            }
            Ok((ctx, vt))
        });
        match checked {
            Ok((ctx, vt)) => {
                self.state.caller_upstream[caller] = ctx.delegation_chain;
                self.state.caller_chains[caller] =
                    self.record.chains.push(ctx.delegation_chain, ctx.agent_id);
                self.state.verified[caller] = Some(vt);
                true
            }
            Err(why) => {
                let detail = format!("caller `{}`: token refused: {why}", c.id);
                self.error(ErrorCode::Unauthenticated, detail, None);
                false
            }
        }
    }

    /// Whether a request from a driver caller to `callee` may go on: an agent that requires a
    /// token refuses a caller that presents none.
    pub(crate) fn token_required(&mut self, caller: CallerIx, callee: AgentIx) -> bool {
        let agent = &self.record.scenario.agents[callee];
        let c = &self.record.scenario.callers[caller];
        if agent.requires_token && c.token.is_none() {
            let detail = format!(
                "`{}` requires a verified token; caller `{}` presented none",
                agent.name(),
                c.id
            );
            self.error(ErrorCode::Unauthenticated, detail, None);
            return false;
        }
        true
    }

    /// A nested request from `task` to `callee` (`what`: the delegation creating the child, or a
    /// reply sent down to it): the platform mints a token for the derived context and the callee
    /// verifies it; the context is then the verified claims'. Without a platform key, the derived
    /// context goes as before, unless the callee requires a token. `Err`: refused
    /// (`unauthenticated` recorded), with the index of the failed check in `token_refusals`.
    pub(crate) fn nested_token(
        &mut self,
        task: TaskIx,
        ctx: CallerContext<'s>,
        callee: AgentIx,
        what: &str,
    ) -> Result<(CallerContext<'s>, Option<VerifiedToken>), usize> {
        let Some(tokens) = &self.record.scenario.tokens else {
            return Ok((ctx, None));
        };
        let names = &self.record.scenario.symbols;
        let chain: Vec<Sym> = self.record.chains.to_vec(ctx.delegation_chain);
        let grant = Grant {
            sub: names.name(ctx.agent_id),
            tenant: names.name(ctx.tenant),
            classification: self
                .scenario
                .levels
                .get(ctx.classification)
                .map_or("", String::as_str),
            scope: ctx.scopes.iter().map(|&s| names.name(s)).collect(),
            act_chain: chain.iter().map(|&s| names.name(s)).collect(),
            lifetime_s: crate::token::NESTED_LIFETIME_S,
        };
        let now = self.now_ms();
        let requires = self.record.scenario.agents[callee].requires_token;
        let token = match tokens.mint(&grant, now) {
            Ok(t) => t,
            Err(_) if !requires => return Ok((ctx, None)),
            Err(why) => return Err(self.refuse_nested(task, callee, what, why)),
        };
        let checked = tokens
            .verify(&token, now)
            .and_then(|vt| Ok((self.claims_context(&vt, ctx.scopes.clone())?, vt)));
        match checked {
            Ok((verified, vt)) => Ok((verified, Some(vt))),
            Err(why) => Err(self.refuse_nested(task, callee, what, why)),
        }
    }

    /// A reply the delegating `task` sends down to its paused `child` is a request on the child's
    /// task: it carries a minted token the child's agent verifies, whose `sub` must be the
    /// task's owner. `Err`: refused, as [`Self::nested_token`].
    pub(crate) fn reply_token(&mut self, task: TaskIx, child: TaskIx) -> Result<(), usize> {
        let ctx = self.nested_context(task);
        let callee = self.record.tasks[child].agent();
        let (verified, _) = self.nested_token(task, ctx, callee, "reply")?;
        if verified.agent_id != self.record.tasks[child].owner.id {
            let why = "claim `sub` is not the owner of the task".to_string();
            return Err(self.refuse_nested(task, callee, "reply", why));
        }
        Ok(())
    }

    fn refuse_nested(&mut self, task: TaskIx, callee: AgentIx, what: &str, why: String) -> usize {
        let detail = format!(
            "`{}` refused the token of `{}`'s {what}: {why}",
            self.record.scenario.agents[callee].name(),
            self.agent_name(task)
        );
        self.error(ErrorCode::Unauthenticated, detail, Some(task));
        self.record.token_refusals.push(why);
        self.record.token_refusals.len() - 1
    }
}
