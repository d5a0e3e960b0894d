import { Router } from "express";
import { createAccountRouter } from "../applications/account-routes.js";
import { createApplyRouter } from "../applications/apply-routes.js";
import { createPageErrorHandler } from "../pages/page-errors.js";
import type { WebSupport } from "../pages/web-support.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { createUsageRouter } from "../usage/usage-routes.js";
import { createChatRouter } from "./chat-routes.js";
import { createKeysRouter } from "./keys-routes.js";
import { createMailer, type Mailer } from "./mailer.js";
import { createSessionRouter } from "./session-routes.js";
import type { SessionStore } from "./session-store.js";
import { createSignInRouter } from "./sign-in-routes.js";

/**
 * The browser playground (docs/API.md §1.6, §5.3): the access application
 * (`/apply`), e-mail sign-in, the account page, sessions, `/keys` and the chat. Every page gets helmet's security headers
 * and every state-changing form a CSRF check (see WebSupport.page).
 *
 * @param context - the request pipeline's dependencies, for the chat
 * @param mailer - how sign-in links and application mail go out; built from the configuration when omitted
 */
export function createPlaygroundRouter(
  web: WebSupport<SessionStore>,
  context: PipelineContext,
  mailer?: Mailer,
): Router {
  const { services } = web;
  const router = Router();
  const mail = mailer ?? createMailer(services.config, services.logger);
  router.use(createSignInRouter(web, mail, services.billing.rateLimiter));
  router.use(createApplyRouter(web, mail, services.billing.rateLimiter));
  router.use(createAccountRouter(web));
  router.use(createSessionRouter(web));
  router.use(createKeysRouter(web));
  router.use(createChatRouter(web, context));
  router.use(createUsageRouter(web));
  router.use(createPageErrorHandler(services.logger));
  return router;
}
