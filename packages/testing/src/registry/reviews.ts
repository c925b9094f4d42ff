/**
 * The review kinds kube-apiserver serves (authorization.k8s.io/v1 and
 * authentication.k8s.io/v1): create-only, answered (../reviews.ts) and never stored. One
 * file for the six: they differ only in group, kind and scope.
 *
 * @module
 */
import { defineKind } from './kind.js';
import type { KindDefinition } from './types.js';

function review(group: string, kind: string, namespaced = false): KindDefinition {
  return defineKind({
    group,
    resource: `${kind.toLowerCase()}s`,
    kind,
    namespaced,
    strategicMerge: false,
    virtual: true,
  });
}

/** SelfSubjectAccessReviews. */
export const selfSubjectAccessReviews = review('authorization.k8s.io', 'SelfSubjectAccessReview');
/** SubjectAccessReviews. */
export const subjectAccessReviews = review('authorization.k8s.io', 'SubjectAccessReview');
/** LocalSubjectAccessReviews. */
export const localSubjectAccessReviews = review(
  'authorization.k8s.io',
  'LocalSubjectAccessReview',
  true,
);
/** SelfSubjectRulesReviews. */
export const selfSubjectRulesReviews = review('authorization.k8s.io', 'SelfSubjectRulesReview');
/** SelfSubjectReviews. */
export const selfSubjectReviews = review('authentication.k8s.io', 'SelfSubjectReview');
/** TokenReviews. */
export const tokenReviews = review('authentication.k8s.io', 'TokenReview');
