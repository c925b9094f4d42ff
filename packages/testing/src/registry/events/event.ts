/**
 * Event (events.k8s.io/v1). On kube-apiserver a second view of the stored core/v1 Events;
 * here its own storage (no conversion between the two APIs). A PUT of a missing Event
 * creates it (AllowCreateOnUpdate).
 *
 * @module
 */
import { EVENTS_API_EVENT, eventPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';

/** events.k8s.io/v1 Events. */
export const eventsApiEvents = defineKind({
  group: 'events.k8s.io',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  fieldSelectors: [
    'regarding.kind',
    'regarding.namespace',
    'regarding.name',
    'regarding.uid',
    'regarding.apiVersion',
    'reason',
    'reportingController',
    'type',
  ],
  printers: eventPrinters(EVENTS_API_EVENT),
  strategy: { allowCreateOnUpdate: true },
});
