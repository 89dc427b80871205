// Admin, for the instance owner (docs/decisions/0011-instance-owner.md): health and key figures, partners and their
// credentials (a new secret is shown once), webhook secrets, recent deliveries of every partner and redelivery.
import { api } from './api.js';
import { h, replace, when, announce } from './dom.js';

const OVERLAPS = [[3600, '1 hour'], [86400, '1 day'], [7 * 86400, '7 days'], [0, 'no overlap (stop it now)']];
const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

const path = (template, id) => template.replace('{id}', encodeURIComponent(id));

/** The figures and readiness checks of `GET /open/admin/overview`. */
function overviewSection(overview) {
  const figure = (name, value, id) => h('div', {}, h('dt', {}, name), h('dd', { id }, String(value)));
  const ready = overview.status === 'ready';
  return [
    h('p', { class: ready ? 'notice' : 'error', id: 'admin-status' },
      ready ? 'Ready: every check passes.' : 'Not ready: a check fails (GET /readyz answers 503).'),
    h('ul', { class: 'checks', id: 'admin-checks' }, overview.checks.map((check) =>
      h('li', { 'data-check': check.name, class: check.ok ? 'ok' : 'error' },
        h('span', { class: 'badge ' + (check.ok ? 'ok' : 'failed') }, check.ok ? 'ok' : 'failing'), ' ', check.name,
        check.error ? h('span', { class: 'error' }, ': ', check.error) : null))),
    h('dl', { class: 'figures', id: 'admin-figures' },
      figure('Requests', overview.requests.total, 'figure-requests'),
      figure('4xx answers', overview.requests.client_errors, 'figure-client-errors'),
      figure('5xx answers', overview.requests.server_errors, 'figure-server-errors'),
      figure('Queue depth', overview.queue_depth, 'figure-queue'),
      figure('Webhook POSTs failed', overview.webhook_attempts.failed, 'figure-webhooks-failed'),
      figure('Partners', overview.partners, 'figure-partners'),
      figure('Accounts', overview.accounts, 'figure-accounts'),
      figure('Records', overview.records, 'figure-records')),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Jobs by kind and state' },
      h('table', { class: 'scores', id: 'admin-jobs' },
        h('caption', {}, 'Jobs by kind and state'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Kind'),
          JOB_STATES.map((state) => h('th', { scope: 'col', class: 'number' }, state)))),
        h('tbody', {}, overview.jobs.length === 0
          ? h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No jobs yet.'))
          : overview.jobs.map((job) => h('tr', { 'data-kind': job.kind }, h('th', { scope: 'row' }, job.kind),
            JOB_STATES.map((state) => h('td', { class: 'number' }, String(job[state])))))))),
    h('p', { class: 'meta' }, `Earshot ${overview.version}, this process up since ${when(overview.started_at_ms)}. `,
      'Requests and webhook POSTs count this process; jobs are the shared queue. Raw: ',
      h('a', { href: '/readyz' }, '/readyz'), ', ', h('a', { href: '/metrics' }, '/metrics'), '.'),
  ];
}

/** Shown once after a partner is created or its secret rotated: the secret is not kept in readable form. */
function secretPanel(credentials, what) {
  const panel = h('section',
    { class: 'card secret', id: 'new-secret', role: 'alert', 'aria-labelledby': 'new-secret-title' },
    h('h3', { id: 'new-secret-title' }, what),
    h('p', {}, 'Copy the secret now: Earshot keeps only its hash and cannot show it again.'),
    h('dl', { class: 'credentials' },
      h('dt', {}, 'client_id'), h('dd', {}, h('code', { id: 'new-client-id' }, credentials.client_id)),
      h('dt', {}, 'client_secret'), h('dd', {}, h('code', { id: 'new-client-secret' }, credentials.client_secret))),
    credentials.partner.previous_secret_expires_at_ms
      ? h('p', { class: 'meta' }, 'The previous secret keeps working until ',
        when(credentials.partner.previous_secret_expires_at_ms), '.') : null,
    h('button', { type: 'button', id: 'new-secret-done', onclick: () => panel.remove() }, 'I have copied it'));
  return panel;
}

function partnerItem(partner, actions) {
  const label = partner.name;
  const webhook = h('p', { class: 'webhook-secret', hidden: true });
  const reveal = h('button', { type: 'button', class: 'reveal', 'aria-label': `Show the webhook secret of ${label}`,
    'aria-expanded': 'false' }, 'Webhook secret');
  reveal.addEventListener('click', async () => {
    if (!webhook.hidden) {
      webhook.hidden = true;
      reveal.setAttribute('aria-expanded', 'false');
      return;
    }
    try {
      const { secret } = await api('GET', path('/open/admin/partners/{id}/webhook-secret', partner.partner_id));
      replace(webhook, 'Signs this partner\'s webhooks: ', h('code', {}, secret));
      webhook.hidden = false;
      reveal.setAttribute('aria-expanded', 'true');
    } catch (error) {
      announce(error.message);
    }
  });
  const active = partner.status === 'active';
  return h('li', { class: 'card partner', 'data-partner': partner.partner_id },
    h('h3', { class: 'partner-name' }, label),
    h('p', { class: 'meta' }, h('code', {}, partner.partner_id), ' · created ', when(partner.created_at_ms),
      partner.default_tenant ? ' · the default tenant (this instance\'s own accounts)' : ''),
    h('p', { class: 'badges' },
      h('span', { class: 'badge ' + (active ? 'ok' : 'failed'), 'data-status': partner.status }, partner.status),
      h('span', { class: 'badge' }, `${partner.accounts} accounts`),
      h('span', { class: 'badge' }, `${partner.records} records`),
      partner.direct_sign_in ? h('span', { class: 'badge' }, 'direct sign-in') : null,
      partner.generation > 1 ? h('span', { class: 'badge' }, `generation ${partner.generation}`) : null,
      partner.previous_secret_expires_at_ms
        ? h('span', { class: 'badge busy' }, 'old secret works until ', when(partner.previous_secret_expires_at_ms))
        : null),
    partner.default_tenant ? null : h('p', { class: 'actions' },
      h('button', { type: 'button', class: active ? 'danger toggle' : 'toggle',
        'aria-label': `${active ? 'Disable' : 'Enable'} ${label}`,
        onclick: () => actions.toggle(partner) }, active ? 'Disable' : 'Enable'),
      h('button', { type: 'button', class: 'rotate', 'aria-label': `Rotate the client secret of ${label}`,
        onclick: () => actions.rotate(partner) }, 'Rotate secret'),
      reveal),
    webhook);
}

function deliveryRow(delivery, partners, redeliver) {
  const last = delivery.last_attempt;
  const answer = !last ? 'not tried yet' : last.status ? `HTTP ${last.status}` : (last.error ?? 'no answer');
  return h('tr', { 'data-delivery': delivery.delivery_id },
    h('td', {}, when(delivery.created_at_ms)),
    h('td', {}, partners.get(delivery.partner_id) ?? delivery.partner_id),
    h('td', {}, h('code', {}, delivery.task_id), h('br'), h('span', { class: 'meta' }, delivery.url)),
    h('td', {}, delivery.event),
    h('td', {}, h('span', { class: 'badge ' + ({ delivered: 'ok', failed: 'failed' }[delivery.state] ?? 'busy'),
      'data-state': delivery.state }, delivery.state)),
    h('td', { class: 'number' }, String(delivery.attempts)),
    h('td', {}, answer),
    h('td', {}, delivery.state === 'pending' ? null : h('button', { type: 'button', class: 'redeliver',
      'aria-label': `Redeliver ${delivery.event} of task ${delivery.task_id}`,
      onclick: (event) => redeliver(delivery, event.target) }, 'Redeliver')));
}

/** The Admin page. Returns the page's clean-up. */
export async function adminPage(main, { account }) {
  if (!account?.instance_owner) return notOwner(main, account);
  const health = h('section', { class: 'admin-block', 'aria-labelledby': 'health-title' });
  const partners = h('section', { class: 'admin-block', 'aria-labelledby': 'partners-title' });
  const deliveries = h('section', { class: 'admin-block', 'aria-labelledby': 'deliveries-title' });
  replace(main, h('h1', {}, 'Admin'), health, partners, deliveries);
  let names = new Map();

  async function showHealth() {
    const refresh = h('button', { type: 'button', id: 'refresh-health', onclick: showHealth }, 'Refresh');
    const head = h('div', { class: 'section-head' }, h('h2', { id: 'health-title' }, 'Health'), refresh);
    try {
      replace(health, head, overviewSection(await api('GET', '/open/admin/overview')));
    } catch (error) {
      replace(health, head, h('p', { class: 'error', role: 'alert' }, error.message));
    }
  }

  const overlap = h('select', { id: 'rotate-overlap' },
    OVERLAPS.map(([seconds, label]) => h('option', { value: seconds, selected: seconds === 86400 }, label)));
  const created = h('div', { id: 'partner-secret' });
  const createError = h('p', { class: 'error', role: 'alert', id: 'partner-error' });
  const actions = {
    async toggle(partner) {
      const disabling = partner.status === 'active';
      if (disabling && !confirm(`Disable ${partner.name}? Its tokens and signed URLs stop working at once and for `
        + 'good: enabling it again revives none of them.')) return;
      try {
        await api('PATCH', path('/open/admin/partners/{id}', partner.partner_id),
          { status: disabling ? 'disabled' : 'active' });
        announce(`${partner.name} ${disabling ? 'disabled' : 'enabled'}.`);
        await showPartners();
      } catch (error) {
        announce(error.message);
      }
    },
    async rotate(partner) {
      const seconds = Number(overlap.value);
      const kept = OVERLAPS.find(([value]) => value === seconds)?.[1];
      if (!confirm(`Give ${partner.name} a new client secret? The current one keeps working for ${kept}.`)) return;
      try {
        const credentials = await api('POST', path('/open/admin/partners/{id}/rotate-secret', partner.partner_id),
          { overlap_seconds: seconds });
        await showPartners();
        replace(created, secretPanel(credentials, `New secret of ${partner.name}`));
        created.querySelector('button').focus();
      } catch (error) {
        announce(error.message);
      }
    },
  };
  const form = h('form', { class: 'inline-form', id: 'partner-form' },
    h('label', { for: 'partner-name' }, 'New partner'),
    h('input', { id: 'partner-name', name: 'name', type: 'text', maxlength: 200, required: true,
      placeholder: 'Acme Notes' }),
    h('button', { type: 'submit', class: 'primary' }, 'Create partner'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    createError.textContent = '';
    try {
      const credentials = await api('POST', '/open/admin/partners', { name: form.elements.name.value.trim() });
      form.reset();
      await showPartners();
      replace(created, secretPanel(credentials, `Credentials of ${credentials.partner.name}`));
      created.querySelector('button').focus();
    } catch (error) {
      createError.textContent = error.message;
    }
  });
  const list = h('ul', { class: 'partners', id: 'partners' });
  replace(partners, h('h2', { id: 'partners-title' }, 'Partners'),
    h('p', { class: 'muted' }, 'Each partner is a tenant whose backend holds client credentials (POST /open/partner/token).'),
    form, createError, created,
    h('p', { class: 'field inline' }, h('label', { for: 'rotate-overlap' }, 'A rotated secret keeps working for'),
      overlap),
    list);

  async function showPartners() {
    try {
      const answer = await api('GET', '/open/admin/partners');
      names = new Map(answer.partners.map((partner) => [partner.partner_id, partner.name]));
      replace(list, answer.partners.map((partner) => partnerItem(partner, actions)));
      list.dataset.loaded = 'true';
    } catch (error) {
      replace(list, h('li', { class: 'error', role: 'alert' }, error.message));
    }
  }

  const stateFilter = h('select', { id: 'delivery-state' },
    [['', 'Any state'], ['pending', 'Pending'], ['delivered', 'Delivered'], ['failed', 'Failed']].map(([value, label]) =>
      h('option', { value }, label)));
  const table = h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Webhook deliveries' });
  stateFilter.addEventListener('change', () => showDeliveries());
  replace(deliveries, h('h2', { id: 'deliveries-title' }, 'Webhook deliveries'),
    h('p', { class: 'muted' }, 'The latest 50 of every partner, newest first.'),
    h('p', { class: 'field inline' }, h('label', { for: 'delivery-state' }, 'Show'), stateFilter,
      h('button', { type: 'button', id: 'refresh-deliveries', onclick: () => showDeliveries() }, 'Refresh')),
    table);

  async function redeliver(delivery, button) {
    button.disabled = true;
    try {
      await api('POST', path('/open/admin/webhooks/deliveries/{id}/redeliver', delivery.delivery_id));
      announce(`Redelivering ${delivery.event} of ${delivery.task_id}.`);
      await showDeliveries();
    } catch (error) {
      button.disabled = false;
      announce(error.message);
    }
  }

  async function showDeliveries() {
    const params = new URLSearchParams({ limit: '50' });
    if (stateFilter.value) params.set('state', stateFilter.value);
    try {
      const answer = await api('GET', '/open/admin/webhooks/deliveries?' + params);
      replace(table, answer.deliveries.length === 0
        ? h('p', { class: 'muted', id: 'no-deliveries' }, 'No webhook deliveries.')
        : h('table', { class: 'scores', id: 'deliveries' },
          h('thead', {}, h('tr', {}, ['When', 'Partner', 'Task', 'Event', 'State', 'Attempts', 'Last answer', '']
            .map((name, index) => h('th', { scope: 'col', class: index === 5 ? 'number' : null },
              name || h('span', { class: 'visually-hidden' }, 'Actions'))))),
          h('tbody', {}, answer.deliveries.map((delivery) => deliveryRow(delivery, names, redeliver)))));
      table.dataset.loaded = 'true';
    } catch (error) {
      replace(table, h('p', { class: 'error', role: 'alert' }, error.message));
    }
  }

  await Promise.all([showHealth(), showPartners().then(showDeliveries)]);
  return null;
}

function notOwner(main, account) {
  replace(main, h('h1', {}, 'Admin'),
    h('p', { id: 'not-owner' }, 'Only the instance owner can see this page.'),
    h('p', {}, 'Whoever runs this server makes an account the owner from its shell:'),
    h('pre', {}, h('code', {}, `earshot accounts grant-owner ${account?.id ?? 'ACCOUNT_ID'}`)),
    h('p', {}, h('a', { href: '#/' }, 'Back to the library')));
  return null;
}
