/**
 * What answers an installed agent's model calls in each trial, from `--model`: the scripted model
 * adapted to the agent's own tools, or the upstream provider (live, its real key kept in this
 * process). Around the backend: the trial's budgets (`max_total_tokens`, `max_cost_usd`, and a cap
 * of `max_steps` calls) and the record, which holds every exchange before the agent sees it.
 *
 * @module
 */
import type { HttpDeps } from "../../model/_http.ts";
import { MalformedResponse, ModelRejected, ModelUnavailable } from "../../model/model_errors.ts";
import type { Price } from "../../model/prices.ts";
import { heuristicCounter } from "../../model/tokens.ts";
import { budgetedBackend, gatewayBudget } from "../../gateway/budget.ts";
import type { GatewayAnswer, GatewayBackend, GatewayCall } from "../../gateway/gateway.ts";
import { gatewayHandler } from "../../gateway/handler.ts";
import { GatewayLedger } from "../../gateway/ledger.ts";
import { liveBackend, type LiveUpstream } from "../../gateway/live_backend.ts";
import { modelBackend } from "../../gateway/model_backend.ts";
import { recordExchange } from "../../gateway/recording.ts";
import { scriptedAgentModel } from "../../gateway/scripted_agent_model.ts";
import { EVENT, event } from "../../store/event_catalogue.ts";
import type { GatewayTrial, TrialGatewayFactory } from "../trial/trial_plan.ts";

/** The model behind a run's gateways. */
export type GatewayModel =
  | {
    /** Verdict's scripted model, solving each task through the agent's own tools. */
    kind: "scripted";
    /** The share of trials that go wrong (`scripted:faults=X`). */
    faults: number;
  }
  | {
    /** A provider, forwarded to. */
    kind: "live";
    /** Where, and with which key. */
    upstream: LiveUpstream;
    /** Retries and the request timeout, as for Verdict's own loop. */
    http: Pick<HttpDeps, "clock" | "retry" | "requestTimeoutMs" | "gate">;
  };

/**
 * The gateway of each trial of a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trialGateways } from "./gateway_setup.ts";
 * assert.equal(typeof trialGateways({ kind: "scripted", faults: 0 }, null), "function");
 * ```
 */
export function trialGateways(model: GatewayModel, price: Price | null): TrialGatewayFactory {
  return trialGatewaysFrom(price, (trial) => backendFor(model, trial));
}

/**
 * The gateway of each trial, around the backend `backendOf` makes for it: budgeted by the task's
 * limits (or as `budgetOf` holds it), charged at `price`, every exchange recorded, every call the
 * provider failed counted
 * (`GatewayLedger.providerFailed`); `heard` also hears each exchange (with what the backend threw,
 * if it failed), after it is recorded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trialGatewaysFrom } from "./gateway_setup.ts";
 * const factory = trialGatewaysFrom(null, () => Promise.reject(new Error("unused")));
 * assert.equal(typeof factory, "function");
 * ```
 */
export function trialGatewaysFrom(
  price: Price | null,
  backendOf: (trial: GatewayTrial) => Promise<GatewayBackend>,
  heard?: (call: GatewayCall, answer: GatewayAnswer, failure?: unknown) => void,
  budgetOf: BudgetOf = (backend, ledger, trial) =>
    budgetedBackend(backend, ledger, gatewayBudget(trial.plan.staged.task.manifest.limits)),
): TrialGatewayFactory {
  return async (trial) => {
    const ledger = new GatewayLedger(price);
    const backend = budgetOf(await backendOf(trial), ledger, trial);
    const handler = gatewayHandler({
      backend,
      key: trial.key,
      accepting: () => !ledger.closed,
      onExchange: (call, answer, failure) => {
        // A call still under way when the agent stopped was aborted: its answer reached no one.
        if (ledger.closed) return;
        trial.record(recordExchange(call, answer, price));
        if (isProviderFailure(failure)) ledger.providerFailed(failure.message);
        heard?.(call, answer, failure);
      },
    });
    // The trial's interrupt, or its agent's end, aborts a call under way.
    const stops = AbortSignal.any([trial.signal, ledger.closedSignal]);
    return { handler: (request) => handler(request, stops), ledger };
  };
}

/**
 * How a trial's backend is held to its budget: by the task's limits (`budgetedBackend`), or, in a
 * replay, by the record's own decisions (`recordedBudgetBackend`).
 */
export type BudgetOf = (
  backend: GatewayBackend,
  ledger: GatewayLedger,
  trial: GatewayTrial,
) => GatewayBackend;

/** The upstream's failure, as the live backend throws it (not a trial interrupted, not a bug). */
function isProviderFailure(failure: unknown): failure is Error {
  return failure instanceof ModelUnavailable || failure instanceof ModelRejected ||
    failure instanceof MalformedResponse;
}

async function backendFor(model: GatewayModel, trial: GatewayTrial): Promise<GatewayBackend> {
  if (model.kind === "scripted") {
    return modelBackend(
      await scriptedAgentModel({
        task: trial.plan.staged.task,
        rng: trial.rng.stream("model"),
        faults: model.faults,
        counter: heuristicCounter,
      }),
    );
  }
  return liveBackend(model.upstream, {
    ...model.http,
    rng: trial.rng.stream("retry"),
    secrets: [],
    onRetry: (attempt) => trial.record([event(EVENT.modelRetry, attempt)]),
  });
}
