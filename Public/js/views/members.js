// Members: who can open the app and with which role (changed in place, or removed), the
// invitations not accepted yet (revoked here), and inviting someone: the server makes a one-time
// link, shown once here to copy and pass on (no mail is sent).
import { api, state, can, roleNote, ROLES } from '../state.js';
import { h, field, select, formatDate } from '../dom.js';
import { confirmDialog } from '../dialogs.js';
import { showError, info, announce, explain } from '../notify.js';
import { clearFieldErrors, placeErrors, focusPointer } from '../field-errors.js';
import { showRequestError } from '../save-flow.js';
import { onceBox } from '../copy.js';

export const ROLE_TEXT = {
  viewer: 'Viewer — sees everything, previews and downloads; changes nothing.',
  editor: 'Editor — also changes families, layouts, screens and plugins, and imports.',
  publisher: 'Publisher — also publishes and rolls back.',
  admin: 'Admin — also manages members, invitations, tokens and the app’s settings, reads the activity, and can delete the app.',
};

const roleOptions = () => ROLES.map((r) => ({ value: r, text: r.charAt(0).toUpperCase() + r.slice(1) }));

/** The page a role below admin gets when it opens an admin page by its address. */
export function adminOnly(root, title) {
  root.append(h('div', { class: 'pane-body' }, h('h1', { text: title }), h('p', { class: 'notice' }, roleNote('admin'))));
  return { title };
}

/** What each role may do, folded under the page's lede. */
export function roleHelp() {
  return h('details', { class: 'role-help' },
    h('summary', { text: 'What each role can do' }),
    h('ul', {}, ROLES.map((r) => h('li', { text: ROLE_TEXT[r] }))));
}

export async function mount(root) {
  if (!can('admin')) return adminOnly(root, 'Members');
  const view = new MembersView(root);
  view.render();
  await view.load();
  return { title: 'Members' };
}

class MembersView {
  constructor(root) {
    this.root = root;
    this.members = [];
    this.invitations = [];
  }

  render() {
    this.membersBox = h('div', { id: 'members', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.invitationsBox = h('div', { id: 'invitations', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.linkBox = h('div', { id: 'invite-result' });
    this.email = h('input', { type: 'email', id: 'invite-email', autocomplete: 'off', spellcheck: 'false', required: true });
    this.role = select(roleOptions(), 'editor', { id: 'invite-role' });
    this.inviteButton = h('button', { type: 'submit', class: 'button primary', id: 'invite-button', text: 'Create invitation link' });
    this.errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.form = h('form', { class: 'invite-form', novalidate: true, 'aria-labelledby': 'invite-heading', onsubmit: (e) => { e.preventDefault(); this.invite(); } },
      this.errorsHost,
      h('div', { class: 'row' },
        field('Email', this.email, { pointer: '/email', className: 'grow' }),
        field('Role', this.role, { pointer: '/role', className: 'narrow' }),
        h('div', { class: 'form-actions' }, this.inviteButton)));
    this.root.replaceChildren(h('div', { class: 'pane-body team' },
      h('h1', { text: 'Members' }),
      h('p', { class: 'lede', text: `The people who can open ${state.app.name || state.app.slug}, and what each may do.` }),
      roleHelp(),
      h('section', { class: 'panel', 'aria-labelledby': 'invite-heading' },
        h('h2', { id: 'invite-heading', text: 'Invite someone' }),
        h('p', { class: 'hint', text: 'The server makes a link that works once, for a week. No mail is sent: copy the link and pass it on. Someone without an account sets a password with it; someone with one enters theirs.' }),
        this.form,
        this.linkBox),
      h('section', { class: 'panel', 'aria-labelledby': 'members-heading' },
        h('h2', { id: 'members-heading', text: 'Members' }),
        this.membersBox),
      h('section', { class: 'panel', 'aria-labelledby': 'invitations-heading' },
        h('h2', { id: 'invitations-heading', text: 'Pending invitations' }),
        this.invitationsBox)));
  }

  async load() {
    await Promise.all([this.loadMembers(), this.loadInvitations()]);
  }

  async loadMembers() {
    try {
      this.members = await api.members();
      this.showMembers();
    } catch (error) {
      this.membersBox.replaceChildren(h('p', { class: 'field-error', text: `The members could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the members');
    }
  }

  async loadInvitations() {
    try {
      this.invitations = await api.invitations();
      this.showInvitations();
    } catch (error) {
      this.invitationsBox.replaceChildren(h('p', { class: 'field-error', text: `The invitations could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the invitations');
    }
  }

  showMembers() {
    if (!this.members.length) {
      this.membersBox.replaceChildren(h('p', { class: 'empty', text: state.user?.admin
        ? 'No members yet. As an instance administrator you can open every app without being a member.'
        : 'No members yet.' }));
      return;
    }
    const rows = this.members.map((m) => {
      const who = m.name || m.email;
      const roleSelect = select(roleOptions(), m.role, { 'aria-label': `Role of ${who}`, 'data-member': m.id });
      roleSelect.addEventListener('change', () => this.changeRole(m, roleSelect));
      return h('tr', { 'data-member-id': m.id, 'data-email': m.email },
        h('th', { scope: 'row' }, m.name || '–', m.id === state.user?.id ? h('span', { class: 'badge', text: 'you' }) : null),
        h('td', { text: m.email }),
        h('td', {}, roleSelect),
        h('td', { text: formatDate(m.created_at) }),
        h('td', {}, h('button', {
          type: 'button', class: 'button small danger', 'aria-label': `Remove ${who}`, text: 'Remove', onclick: () => this.remove(m),
        })));
    });
    this.membersBox.replaceChildren(h('table', { class: 'data-table members-table' },
      h('caption', { class: 'visually-hidden', text: 'Members of this app' }),
      h('thead', {}, h('tr', {}, ['Name', 'Email', 'Role', 'Account since', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, rows)));
  }

  showInvitations() {
    if (!this.invitations.length) {
      this.invitationsBox.replaceChildren(h('p', { class: 'empty', text: 'No invitations waiting.' }));
      return;
    }
    this.invitationsBox.replaceChildren(h('table', { class: 'data-table invitations-table' },
      h('caption', { class: 'visually-hidden', text: 'Invitations not accepted yet' }),
      h('thead', {}, h('tr', {}, ['Email', 'Role', 'Invited by', 'Invited', 'Link works until', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, this.invitations.map((inv) => h('tr', { 'data-invitation-id': inv.id, 'data-email': inv.email },
        h('th', { scope: 'row', text: inv.email }),
        h('td', {}, h('span', { class: `badge role-${inv.role}`, text: inv.role })),
        h('td', { text: inv.created_by || '–' }),
        h('td', { class: 'when', text: formatDate(inv.created_at) }),
        h('td', { class: 'when', text: formatDate(inv.expires_at) }),
        h('td', {}, h('button', {
          type: 'button', class: 'button small danger', 'aria-label': `Revoke the invitation of ${inv.email}`, text: 'Revoke', onclick: () => this.revoke(inv),
        })))))));
  }

  async changeRole(member, control) {
    const who = member.name || member.email;
    const role = control.value;
    if (member.id === state.user?.id && role !== 'admin' && !state.user?.admin) {
      const ok = await confirmDialog({
        title: `Make yourself ${role}?`,
        text: `You will no longer manage this app’s members, tokens and settings; another admin would have to give the admin role back.`,
        confirm: `Make me ${role}`, danger: true,
      });
      if (!ok) { control.value = member.role; return; }
    }
    control.disabled = true;
    try {
      await api.setMemberRole(member.id, role);
      member.role = role;
      info(`${who} is now ${role}.`);
      // What this person may do changed: the editor starts again with the new role.
      if (member.id === state.user?.id && !state.user?.admin) location.reload();
    } catch (error) {
      control.value = member.role;
      showError(error, `Changing the role of ${who}`);
    } finally {
      control.disabled = false;
    }
  }

  async remove(member) {
    const who = member.name || member.email;
    const self = member.id === state.user?.id;
    const ok = await confirmDialog({
      title: self ? 'Remove yourself from this app?' : `Remove ${who}?`,
      text: self
        ? 'You will no longer be able to open this app.'
        : `${member.email} will no longer be able to open this app. Their account stays; invite them again to give access back.`,
      confirm: self ? 'Remove me' : 'Remove', danger: true,
    });
    if (!ok) return;
    try {
      await api.removeMember(member.id);
      info(`${who} removed.`);
      if (self && !state.user?.admin) { location.reload(); return; }
      await this.loadMembers();
      this.membersBox.querySelector('select')?.focus();
    } catch (error) {
      showError(error, `Removing ${who}`);
    }
  }

  async revoke(invitation) {
    const ok = await confirmDialog({
      title: `Revoke the invitation of ${invitation.email}?`,
      text: 'The link stops working at once. You can invite them again later.',
      confirm: 'Revoke', danger: true,
    });
    if (!ok) return;
    try {
      await api.revokeInvitation(invitation.id);
      info(`Invitation of ${invitation.email} revoked.`);
      await this.loadInvitations();
    } catch (error) {
      showError(error, 'Revoking the invitation');
    }
  }

  async invite() {
    clearFieldErrors(this.form);
    this.linkBox.replaceChildren();
    const email = this.email.value.trim();
    const role = this.role.value;
    if (!email) {
      placeErrors(this.form, [{ pointer: '/email', message: 'Enter the email address of the person to invite.' }]);
      focusPointer(this.form, '/email');
      return;
    }
    this.inviteButton.disabled = true;
    try {
      const { invitation, url } = await api.invite({ email, role });
      if (!url) {
        // The server mails invitations: the link went to the invitee only.
        this.linkBox.replaceChildren(h('p', { class: 'hint', id: 'invite-link', text: `Invitation sent to ${invitation.email} as ${invitation.role}: it works once, until ${formatDate(invitation.expires_at)}.` }));
        announce(`Invitation sent to ${invitation.email}.`);
        this.email.value = '';
        await this.loadInvitations();
        return;
      }
      this.linkBox.replaceChildren(onceBox({
        id: 'invite-link', label: 'Invitation link', value: url, what: 'Invitation link',
        title: `Invitation for ${invitation.email} as ${invitation.role}`,
        text: `Copy this link and pass it on to ${invitation.email}: it is shown only now, and works once, until ${formatDate(invitation.expires_at)}.`,
      }));
      this.linkBox.querySelector('input').focus();
      announce(`Invitation link for ${invitation.email} made. It is shown only now: copy it.`);
      this.email.value = '';
      await this.loadInvitations();
    } catch (error) {
      showRequestError(error, { root: this.form, errorsHost: this.errorsHost, context: 'Inviting' });
    } finally {
      this.inviteButton.disabled = false;
    }
  }
}
