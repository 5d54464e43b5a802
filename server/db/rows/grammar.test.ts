import { describe, expect, it } from 'vitest';
import { type Condition, type Dialect, parseArrayLiteral, parseConditions, parseLogic, parseOperation } from './grammar.ts';

const f = (column: string, op: string, value: string | string[], negate = false) => ({ kind: 'filter', column, op, negate, value });
const all = (conditions: Condition[] | unknown[], negate = false) => ({ kind: 'logic', op: 'and', negate, conditions });
const any = (conditions: Condition[] | unknown[], negate = false) => ({ kind: 'logic', op: 'or', negate, conditions });

describe('logic trees: where whitespace goes (PostgREST pLogicTree, lexeme = spaces and tabs)', () => {
  const tree = '( and ( id.in.( 1, 2, 3 ) , id.eq.3 ) , or ( id.eq.2 , id.eq.3 ) )';
  it('postgrest: skipped around ( , ) and column names, kept inside items', () => {
    expect(parseLogic('and', false, tree, 'postgrest')).toEqual(
      all([all([f('id', 'in', ['1', ' 2', ' 3 ']), f('id', 'eq', '3 ')]), any([f('id', 'eq', '2 '), f('id', 'eq', '3 ')])]),
    );
  });
  it('hearth: items are trimmed as well', () => {
    expect(parseLogic('and', false, tree, 'hearth')).toEqual(
      all([all([f('id', 'in', ['1', '2', '3']), f('id', 'eq', '3')]), any([f('id', 'eq', '2'), f('id', 'eq', '3')])]),
    );
  });
  it.each<[string, unknown]>([
    ['( id .eq.1)', any([f('id', 'eq', '1')])],
    ['(not.and (a.eq.1),a.eq. "x")', any([all([f('a', 'eq', '1')], true), f('a', 'eq', ' "x"')])],
    ['("a.b".eq.1)', any([f('a.b', 'eq', '1')])],
    ['(and_col.eq.1,or_col.is.NULL,not.eq.2)', any([f('and_col', 'eq', '1'), f('or_col', 'is', 'null'), f('not', 'eq', '2')])],
    ['(a.eq."x,y",a.eq."x"y,a.eq."x" )', any([f('a', 'eq', 'x,y'), f('a', 'eq', '"x"y'), f('a', 'eq', '"x" ')])],
    ['(a.eq.{1,2},a.eq.{x ,b.eq.1)', any([f('a', 'eq', '{1,2}'), f('a', 'eq', '{x '), f('b', 'eq', '1')])],
    [
      '(a.eq(any).{1,2},a.like(all)."{x,y}")',
      any([
        { kind: 'quantified', column: 'a', op: 'eq', quantifier: 'any', negate: false, values: ['1', '2'] },
        { kind: 'quantified', column: 'a', op: 'like', quantifier: 'all', negate: false, values: ['x', 'y'] },
      ]),
    ],
  ])('postgrest reads or=%s', (raw, expected) => {
    expect(parseLogic('or', false, raw, 'postgrest')).toEqual(expected);
  });
  it.each([
    '(a. eq.1)',
    '(a.eq .1)',
    '(a.not. eq.1)',
    '(a.eq(any) .{1})',
    '()',
    '( )',
    '(a.eq.1',
    '(a.eq.1,)',
    '(a)',
    '(a.is.nullx)',
    'a.eq.1',
    '(a.eq.{1,{2})',
    '(a.eq.{x}y)',
  ])('both refuse or=%s', (raw) => {
    for (const d of ['postgrest', 'hearth'] as Dialect[]) expect(() => parseLogic('or', false, raw, d)).toThrow(/./);
  });
  it('text after the tree: ignored by postgrest, refused by hearth', () => {
    expect(parseLogic('and', false, '(a.eq.1,a.neq.2))', 'postgrest')).toEqual(all([f('a', 'eq', '1'), f('a', 'neq', '2')]));
    expect(parseLogic('or', false, '(a.eq.1) OR 1=1 --', 'postgrest')).toEqual(any([f('a', 'eq', '1')]));
    expect(() => parseLogic('and', false, '(a.eq.1,a.neq.2))', 'hearth')).toThrow(/unexpected "\)"/);
  });
  it('a value ends at the first ) in a tree (PostgREST has no nesting in bare items)', () => {
    expect(parseLogic('or', false, '(a.eq.x(y),b.eq.2)', 'postgrest')).toEqual(any([f('a', 'eq', 'x(y')]));
    expect(() => parseLogic('or', false, '(a.eq.x(y),b.eq.2)', 'hearth')).toThrow();
  });
});

describe('plain filters', () => {
  it.each<[string, string, Dialect, unknown]>([
    ['name', 'eq."q"', 'postgrest', f('name', 'eq', '"q"')],
    ['name', 'eq."q"', 'hearth', f('name', 'eq', 'q')],
    ['name', 'eq. a b ', 'postgrest', f('name', 'eq', ' a b ')],
    ['name', 'not.in.(Double"Quote"McGraw",a"b)', 'postgrest', f('name', 'in', ['Double"Quote"McGraw"', 'a"b'], true)],
    ['name', 'in.("Double\\"Quote\\"McGraw\\"")', 'postgrest', f('name', 'in', ['Double"Quote"McGraw"'])],
    ['name', 'in.("a"b,"c" ,d)', 'postgrest', f('name', 'in', ['"a"b', '"c" ', 'd'])],
    ['name', 'in.("a"b,"c" ,d)', 'hearth', f('name', 'in', ['"a"b', 'c', 'd'])],
    ['name', 'in. ( a, b )', 'postgrest', f('name', 'in', ['a', ' b '])],
    ['name', 'in.(")', 'postgrest', f('name', 'in', ['"'])],
    ['name', 'in.(\\)', 'postgrest', f('name', 'in', ['\\'])],
    ['name', 'in.()', 'postgrest', f('name', 'in', [])],
    ['name', 'in.(   )', 'postgrest', f('name', 'in', [])],
    ['name', 'in.("")', 'postgrest', f('name', 'in', [])],
    ['name', 'in.("")', 'hearth', f('name', 'in', [''])],
    ['name', 'in.(1,2))', 'postgrest', f('name', 'in', ['1', '2'])],
    ['done', 'is.NoT_NuLl', 'hearth', f('done', 'is', 'not_null')],
    ['done', 'is.nullx', 'postgrest', f('done', 'is', 'null')],
  ])('%s=%s (%s)', (column, expr, dialect, expected) => {
    expect(parseOperation(column, expr, dialect)).toEqual(expected);
  });
  it.each(['in.(1,2))', 'is.nullx', 'in.(a(b),c)'])('hearth refuses text after the list or word: %s', (expr) => {
    expect(() => parseOperation('x', expr, 'hearth')).toThrow(/unexpected/);
  });
  it.each([
    ['neq(any).{1}', /neq takes no \(any\)\/\(all\) modifier.*not\.eq\(all\)/],
    ['in(all).(1)', /in takes no/],
    ['eq(some).{1}', /unknown modifier "\(some\)"/],
    ['eq(any){1}', /needs a value/],
    ['EQ.1', /unknown operator "EQ"/],
    ['fts(english).x', /full-text search is not supported|fts operator/],
    ['cs.{1}', /not supported/],
  ])('refuses %s', (expr, message) => {
    expect(() => parseOperation('x', expr, 'postgrest')).toThrow(message);
  });
  it('keys or/and/not.or/not.and are trees, the rest filters', () => {
    const conds = parseConditions(new URLSearchParams('not.or=(a.eq.1)&or_col=eq.2&limit=3'), 'postgrest');
    expect(conds).toEqual([any([f('a', 'eq', '1')], true), f('or_col', 'eq', '2')]);
  });
});

describe('PostgreSQL array literals (the values of (any)/(all))', () => {
  it.each<[string, Array<string | null>]>([
    ['{3,4,5}', ['3', '4', '5']],
    ['{}', []],
    [' { } ', []],
    ['{ a b , c }', ['a b', 'c']],
    ['{"a,b", "c\\"d" ,e\\,f}', ['a,b', 'c"d', 'e,f']],
    ['{NULL,null,"NULL",\\NULL,nulls}', [null, null, 'NULL', 'NULL', 'nulls']],
    ['{"",x}', ['', 'x']],
    ['{a\\ }', ['a ']],
  ])('%s', (text, values) => {
    expect(parseArrayLiteral(text, 'c')).toEqual(values);
  });
  it.each([
    ['3', /must start with \{/],
    ['{1,2', /unexpected end/],
    ['{1,,2}', /unexpected ,/],
    ['{1,}', /unexpected \}/],
    ['{,1}', /unexpected ,/],
    ['{1}x', /junk/],
    ['{a"b"}', /quote all of an element/],
    ['{"a"b}', /incorrectly quoted/],
    ['{{1},{2}}', /nested arrays/],
    ['{1 2 "3"}', /quote/],
  ])('refuses %s', (text, message) => {
    expect(() => parseArrayLiteral(text, 'c')).toThrow(message);
  });
});
