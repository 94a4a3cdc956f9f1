/**
 * Who may do what: logins (password hashes, the login throttle, the handler that admits a
 * connection) and the roles and commit policy each storage unit gives its users.
 */
package io.gpdedup.store.auth;
