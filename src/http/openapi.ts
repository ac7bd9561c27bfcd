/** The parts of the OpenAPI document that are not derived from the routes. */
export const openapiDocumentation = {
  info: {
    title: 'Voice agent appliance API',
    version: '0.1.0',
    description:
      'Every /api route needs `Authorization: Bearer <api key>`. Errors always have the body ' +
      '`{error: {code, message, details?, requestId}}`. Lists take `limit` (1-100, default 50) and ' +
      '`cursor`, and return `nextCursor` (null on the last page), newest first.',
  },
  components: {
    securitySchemes: {
      bearer: { type: 'http' as const, scheme: 'bearer', description: 'A workspace API key (vak_...)' },
    },
  },
}
