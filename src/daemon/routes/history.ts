// GET /api/history: the finished questions, newest first, for the page's history: searched, and as
// JSON or as a CSV file to download. history.jsonl is read from its end, only as far as it takes to
// find what was asked for (history-file.ts); with a shared store, every daemon's history is read
// there instead, and this daemon's own file only while the store cannot be reached (said in the reply).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { historyCsv } from '../../history-csv.js';
import { historyFor, HistoryReplySchema, historyMatching, searchHistory, type HistoryLine } from '../../history-file.js';
import { ErrorReplySchema } from '../../protocol.js';
import { HttpError } from '../errors.js';
import { HISTORY_LINES } from '../limits.js';
import type { RouteContext } from './context.js';
import { viewerOfRequest } from './decider.js';

const HistoryQuerySchema = z
  .strictObject({
    /** Case-insensitive text in the project, a question or its header, an answer, a note, the asker's name or the machine. */
    q: z.string().max(1000).optional(),
    limit: z.coerce.number().int().min(1).max(HISTORY_LINES.max).default(HISTORY_LINES.default),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .meta({ title: 'history query' });

export const HISTORY_CSV_FILENAME = 'askbridge-history.csv';

export const historyRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { deps }) => {
  app.get(
    '/api/history',
    {
      config: { access: 'page-or-local' },
      schema: {
        summary: 'The finished questions, newest first: who or what answered, with what; searched with q, as JSON or CSV',
        querystring: HistoryQuerySchema,
        response: {
          200: {
            description: '`{ entries }` (format=json), or a CSV file with one row per question (format=csv)',
            content: {
              'application/json': { schema: HistoryReplySchema },
              // The CSV is text made by historyCsv, sent as it is: no schema can check more of it than that it is text.
              'text/csv': { schema: z.string().meta({ description: `${HISTORY_CSV_FILENAME}: a header row, then one row per question (RFC 4180)` }) },
            },
          },
          '4xx': ErrorReplySchema,
          '5xx': ErrorReplySchema,
        },
      },
    },
    async (request, reply) => {
      const { history } = deps;
      if (!history) throw new HttpError(404, 'not_found', 'this daemon keeps no history');
      const { q, limit, format } = request.query;
      const keep = historyFor(viewerOfRequest(request), historyMatching(q ?? ''));
      // With a shared store, everyone's history is read there; while it cannot be, this daemon's own file, and the reply says so.
      const shared = await history.everyone?.({ limit, keep });
      let lines: HistoryLine[];
      let localOnly: { reason: string } | undefined;
      if (shared && 'lines' in shared) {
        lines = shared.lines;
        request.log.debug({ entries: lines.length, searched: q !== undefined && q !== '' }, 'history read from the shared store');
      } else {
        if (shared) localOnly = { reason: shared.unreachable };
        // Questions settled before this request are all in the file (or waiting in memory while it cannot be written).
        await history.flushed();
        const searched = await searchHistory(history.path, { limit, keep });
        lines = searched.lines;
        request.log.debug({ entries: lines.length, scannedBytes: searched.scannedBytes, searched: q !== undefined && q !== '', localOnly: localOnly !== undefined }, 'history read');
      }
      if (format === 'csv') {
        return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${HISTORY_CSV_FILENAME}"`).send(historyCsv(lines));
      }
      return reply.send({ entries: lines, ...(localOnly ? { localOnly } : {}) });
    },
  );
};
